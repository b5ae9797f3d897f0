package dev.vigil.close;

import java.util.List;

import dev.vigil.close.decision.EscalationStep;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.MonotonicClock;

/**
 * Stage 5: performs the steps {@link EscalationStep#plan} decides for the close's policy (LEAK: none;
 * TERM_THEN_KILL: SIGTERM to each survivor's process group, wait the grace period, then SIGKILL through the
 * pidfd and to the group, and wait again for those reaps).
 */
final class EscalateStage extends CloseStage {
    EscalateStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) throws InterruptedException {
        for (EscalationStep step : EscalationStep.plan(job.settings.escalation(), job.settings.grace().toNanos())) {
            job.collectReaped();
            if (send(job, job.unreaped(), step)) {
                job.awaitAllReaped(step.waitNanos());
            }
        }
    }

    private static boolean send(CloseJob job, List<CloseJob.ChildTrack> survivors, EscalationStep step) {
        for (CloseJob.ChildTrack t : survivors) {
            long now = MonotonicClock.nanos();
            // Journaled before it is sent, so a reap it causes always comes after it in the journal.
            job.journal.append(new EscalationSent(now, job.pid(), job.poolId(), job.closeId, t.child.group(),
                    t.child.index(), t.child.pid(), step.signal(), step.target()));
            t.escalatedNanos = now;
            if (step.throughPidfd()) {
                t.child.signal(step.signal());
            }
            t.child.signalProcessGroup(step.signal());
        }
        return !survivors.isEmpty();
    }
}
