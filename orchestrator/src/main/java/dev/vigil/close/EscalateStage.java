package dev.vigil.close;

import java.util.List;

import dev.vigil.close.decision.EscalationStep;
import dev.vigil.contain.ContainmentMode;
import dev.vigil.contain.PoolContainment;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.MonotonicClock;

/**
 * Stage 5: performs the steps {@link EscalationStep#plan} decides for the close's policy (LEAK: none;
 * TERM_THEN_KILL: SIGTERM to each survivor's process group, wait the grace period, then SIGKILL through the
 * pidfd and to the group, and wait again for those reaps). With a cgroup per pool the SIGKILL step is the
 * cgroup's (cgroup.kill: every descendant, forks included). Under either policy the pool's container is
 * then swept for strays ({@link ContainerSweep}).
 */
final class EscalateStage extends CloseStage {
    EscalateStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) throws InterruptedException {
        PoolContainment container = job.target.containment();
        boolean cgroup = container != null && container.mode() == ContainmentMode.CGROUP;
        for (EscalationStep step : EscalationStep.plan(job.settings.escalation(), job.settings.grace().toNanos())) {
            job.collectReaped();
            List<CloseJob.ChildTrack> survivors = job.unreaped();
            if (survivors.isEmpty()) {
                continue;
            }
            if (cgroup && step.signal() == EscalationStep.SIGKILL) {
                ContainerSweep.killCgroup(job, container, survivors);
            } else {
                send(job, survivors, step);
            }
            job.awaitAllReaped(step.waitNanos());
        }
        if (container != null) {
            ContainerSweep.sweepStrays(job, container);
        }
    }

    private static void send(CloseJob job, List<CloseJob.ChildTrack> survivors, EscalationStep step) {
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
    }
}
