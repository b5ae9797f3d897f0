package dev.vigil.close;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.vigil.close.decision.ChildWatch;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.SurvivorDiagnosis;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.MonotonicClock;

/**
 * One close travelling through the pipeline. Its stages run one after another (the Disruptor's
 * sequence barriers give each stage a happens-before edge from the previous one), so its fields need
 * no locks; only {@link #wakeups} is touched by the reaper's threads.
 */
final class CloseJob {
    final CloseTarget target;
    final long closeId;
    final CloseSettings settings;
    final PoolJournal journal;
    final CompletableFuture<CloseReport> result = new CompletableFuture<>();
    /** Reaper callbacks drop a token here when a child's exit is collected, waking the stage that waits. */
    final LinkedBlockingQueue<ChildTrack> wakeups = new LinkedBlockingQueue<>();
    final int lane;

    final List<ChildTrack> children = new ArrayList<>();
    long startNanos;
    long broadcastNanos;
    Throwable failure;

    CloseJob(CloseTarget target, long closeId, PoolJournal journal, int lane) {
        this.target = target;
        this.closeId = closeId;
        this.settings = target.closeSettings();
        this.journal = journal;
        this.lane = lane;
    }

    String poolId() {
        return target.poolId();
    }

    int pid() {
        return journal.orchestratorPid();
    }

    List<ChildTrack> unreaped() {
        List<ChildTrack> out = new ArrayList<>();
        for (ChildTrack t : children) {
            if (t.exit == null) {
                out.add(t);
            }
        }
        return out;
    }

    /** Journals ChildReaped for every child whose exit the reaper collected since the last call; returns how many. */
    int collectReaped() {
        int n = 0;
        for (ChildTrack t : children) {
            if (t.exit == null && t.child.exit().isDone()) {
                ChildExit exit = t.child.exit().getNow(null);
                if (exit == null) {
                    continue;
                }
                t.exit = exit;
                // An escalation journaled just before this reap was collected counts as its cause, so the
                // reap's time is never before the EscalationSent it follows (journal order = time order).
                long time = t.escalatedNanos != 0 ? Math.max(exit.reapedNanos(), t.escalatedNanos) : exit.reapedNanos();
                long since = Math.max(0, exit.reapedNanos() - broadcastNanos);
                t.sinceBroadcastNanos = since;
                journal.append(new ChildReaped(time, pid(), poolId(), closeId, t.child.group(), t.child.index(),
                        t.child.pid(), exit.exitCode(), exit.signal(), since));
                n++;
            }
        }
        return n;
    }

    /** Waits until a reap is signalled or {@code nanos} pass; false on timeout. */
    boolean awaitReap(long nanos) throws InterruptedException {
        if (nanos <= 0) {
            return false;
        }
        ChildTrack t = wakeups.poll(nanos, TimeUnit.NANOSECONDS);
        if (t != null) {
            wakeups.clear();
            return true;
        }
        return false;
    }

    /** Waits up to {@code nanos} for every listed child to be reaped, journaling reaps as they come. */
    void awaitAllReaped(long nanos) throws InterruptedException {
        long deadline = MonotonicClock.nanos() + nanos;
        collectReaped();
        while (!unreaped().isEmpty()) {
            long left = deadline - MonotonicClock.nanos();
            if (left <= 0) {
                return;
            }
            awaitReap(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            collectReaped();
        }
    }

    /** Per-child close state. */
    static final class ChildTrack {
        final ClosingChild child;
        ChildExit exit;
        long sinceBroadcastNanos = -1;
        /** Set at the broadcast: acks and beats seen since, and the progress rule. */
        ChildWatch watch;
        long escalatedNanos;
        SurvivorDiagnosis diagnosis;

        ChildTrack(ClosingChild child) {
            this.child = child;
        }
    }
}
