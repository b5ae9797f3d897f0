package dev.vigil.close;

import java.util.List;

import dev.vigil.contain.ContainmentMode;
import dev.vigil.contain.PoolContainment;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.MonotonicClock;

/**
 * Stage 5: LEAK does nothing; TERM_THEN_KILL sends SIGTERM to each survivor's process group, waits
 * the grace period, then SIGKILL through the pidfd (and to the group, for its descendants), and waits
 * the grace period again for those reaps. With a cgroup per pool the SIGKILL is the cgroup's
 * (cgroup.kill: every descendant, forks included). Under either policy, the pool's container is then
 * swept for strays ({@link ContainerSweep}).
 */
final class EscalateStage extends CloseStage {
    static final int SIGTERM = 15;
    static final int SIGKILL = 9;

    EscalateStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) throws InterruptedException {
        PoolContainment container = job.target.containment();
        if (job.settings.escalation() == EscalationPolicy.TERM_THEN_KILL) {
            escalate(job, container);
        }
        if (container != null) {
            ContainerSweep.sweepStrays(job, container);
        }
    }

    private static void escalate(CloseJob job, PoolContainment container) throws InterruptedException {
        long grace = job.settings.grace().toNanos();
        job.collectReaped();
        if (send(job, job.unreaped(), SIGTERM, "pgroup")) {
            job.awaitAllReaped(grace);
        }
        List<CloseJob.ChildTrack> left = job.unreaped();
        if (container != null && container.mode() == ContainmentMode.CGROUP) {
            if (!left.isEmpty()) {
                ContainerSweep.killCgroup(job, container, left);
                job.awaitAllReaped(Math.max(grace, 1_000_000_000L));
            }
        } else if (send(job, left, SIGKILL, "pidfd+pgroup")) {
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
