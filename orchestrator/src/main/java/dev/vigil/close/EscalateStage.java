package dev.vigil.close;

import java.util.List;

import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.MonotonicClock;

/**
 * Stage 5: LEAK does nothing; TERM_THEN_KILL sends SIGTERM to each survivor's process group, waits
 * the grace period, then SIGKILL through the pidfd (and to the group, for its descendants), and waits
 * the grace period again for those reaps.
 */
final class EscalateStage extends CloseStage {
    static final int SIGTERM = 15;
    static final int SIGKILL = 9;

    EscalateStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) throws InterruptedException {
        if (job.settings.escalation() != EscalationPolicy.TERM_THEN_KILL) {
            return;
        }
        long grace = job.settings.grace().toNanos();
        job.collectReaped();
        if (send(job, job.unreaped(), SIGTERM, "pgroup")) {
            job.awaitAllReaped(grace);
        }
        if (send(job, job.unreaped(), SIGKILL, "pidfd+pgroup")) {
            job.awaitAllReaped(Math.max(grace, 1_000_000_000L));
        }
    }

    private static boolean send(CloseJob job, List<CloseJob.ChildTrack> survivors, int signal, String target) {
        for (CloseJob.ChildTrack t : survivors) {
            long now = MonotonicClock.nanos();
            // Journaled before it is sent, so a reap it causes always comes after it in the journal.
            job.journal.append(new EscalationSent(now, job.pid(), job.poolId(), job.closeId, t.child.group(),
                    t.child.index(), t.child.pid(), signal, target));
            t.escalatedNanos = now;
            if (signal == SIGKILL) {
                t.child.signal(signal);
            }
            t.child.signalProcessGroup(signal);
        }
        return !survivors.isEmpty();
    }
}
