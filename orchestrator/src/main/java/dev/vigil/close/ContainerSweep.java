package dev.vigil.close;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.EscalationStep;
import dev.vigil.contain.ContainedProcess;
import dev.vigil.contain.ContainmentMode;
import dev.vigil.contain.PoolContainment;
import dev.vigil.journal.ContainmentKilled;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.StrayFound;
import dev.vigil.spawn.internal.Linux;

/**
 * The part of a close that works on the pool's container (dev.vigil.contain) rather than on its direct
 * children: the cgroup-wide SIGKILL of the escalation, and the sweep for strays (descendants left in the
 * container after their parent, a direct child, was reaped). Called by {@link EscalateStage}.
 */
final class ContainerSweep {
    /** How long processes still in the container after every reap may take to go before they count as strays. */
    static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(150);
    static final long KILL_BOUND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private ContainerSweep() {
    }

    /**
     * TERM_THEN_KILL in cgroup mode: EscalationSent (target {@code cgroup}) for each direct survivor, then
     * one cgroup.kill for the whole pool (no fork escapes it), awaited until the cgroup is empty (bounded),
     * and ContainmentKilled saying what it covered.
     */
    static void killCgroup(CloseJob job, PoolContainment container, List<CloseJob.ChildTrack> survivors)
            throws InterruptedException {
        long now = MonotonicClock.nanos();
        for (CloseJob.ChildTrack t : survivors) {
            // Journaled before the kill, so a reap it causes always comes after it in the journal.
            job.journal.append(new EscalationSent(now, job.pid(), job.poolId(), job.closeId, t.child.group(),
                    t.child.index(), t.child.pid(), EscalationStep.SIGKILL, "cgroup"));
            t.escalatedNanos = now;
        }
        Set<Integer> direct = survivors.stream().map(t -> t.child.pid()).collect(Collectors.toSet());
        killAndJournal(job, container, direct);
    }

    /**
     * Looks for strays; journals StrayFound for each, and under TERM_THEN_KILL ends them (SIGTERM each, the
     * grace, then the container's SIGKILL) and journals ContainmentKilled. Under LEAK they are kept.
     */
    static void sweepStrays(CloseJob job, PoolContainment container) throws InterruptedException {
        Set<Integer> directPids = new HashSet<>();
        for (CloseJob.ChildTrack t : job.children) {
            directPids.add(t.child.pid());
        }
        List<ContainedProcess> strays = strays(container, directPids);
        if (!strays.isEmpty()) {
            // a descendant of a child that just exited may be dying with it: give it a moment
            long deadline = System.nanoTime() + SETTLE_NANOS;
            while (!strays.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(5);
                strays = strays(container, directPids);
            }
        }
        if (strays.isEmpty()) {
            return;
        }
        for (ContainedProcess s : strays) {
            job.journal.append(new StrayFound(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId, s.pid(),
                    s.parentPid(), s.command(), container.describe()));
            job.strays.add(s);
        }
        if (job.settings.escalation() != EscalationPolicy.TERM_THEN_KILL) {
            return;
        }
        for (ContainedProcess s : strays) {
            Linux.calls().kill(s.pid(), EscalationStep.SIGTERM); // ESRCH when it went meanwhile
        }
        long grace = job.settings.grace().toNanos();
        long deadline = System.nanoTime() + grace;
        while (!strays(container, directPids).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Set<Integer> unreapedDirect = job.unreaped().stream().map(t -> t.child.pid()).collect(Collectors.toSet());
        killAndJournal(job, container, unreapedDirect);
        job.straysKilled = true;
    }

    /** Live processes in the container that are not direct children of the pool. */
    private static List<ContainedProcess> strays(PoolContainment container, Set<Integer> directPids) {
        List<ContainedProcess> out = new ArrayList<>();
        for (ContainedProcess p : container.processes()) {
            if (!directPids.contains(p.pid()) && !p.isZombie()) {
                out.add(p);
            }
        }
        return out;
    }

    private static void killAndJournal(CloseJob job, PoolContainment container, Set<Integer> directPids)
            throws InterruptedException {
        long start = MonotonicClock.nanos();
        List<ContainedProcess> covered = container.killAll();
        boolean empty = container.awaitEmpty(Math.max(job.settings.grace().toNanos(), KILL_BOUND_NANOS));
        long after = MonotonicClock.nanos() - start;
        int direct = 0;
        for (ContainedProcess p : covered) {
            if (directPids.contains(p.pid())) {
                direct++;
            }
        }
        String pids = covered.stream().map(p -> Integer.toString(p.pid())).collect(Collectors.joining(","));
        job.journal.append(new ContainmentKilled(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId,
                container.mode().label(), container.describe(), direct, covered.size() - direct, pids, empty,
                empty ? after : -1));
        job.containmentKills.add(new CloseReport.Kill(container.mode() == ContainmentMode.CGROUP ? "cgroup.kill" : "pgroup SIGKILL",
                container.describe(), direct, covered.size() - direct, empty));
    }
}
