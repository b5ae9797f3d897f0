package dev.vigil.pool;

import java.util.LinkedHashSet;
import java.util.Set;

import dev.vigil.close.PoolJournal;
import dev.vigil.journal.AdmissionRejected;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.MonotonicClock;

/**
 * A pool's admission fence. Operations (control commands, tasks, new children) enter through it and
 * leave when done; once {@link #fence} has run, entering fails with {@link AdmissionClosedException}
 * (journaled as AdmissionRejected). An operation in flight at the fence settles FINISHED when it
 * leaves, or ABANDONED when close gives up on it first — exactly one InFlightSettled each.
 */
final class AdmissionGate {
    static final String FINISHED = "FINISHED";
    static final String ABANDONED = "ABANDONED";

    private final String poolId;
    private final PoolJournal journal;
    private final Set<Ticket> inFlight = new LinkedHashSet<>();
    private boolean fenced;
    private long closeId;

    AdmissionGate(String poolId, PoolJournal journal) {
        this.poolId = poolId;
        this.journal = journal;
    }

    /** One operation inside the gate. */
    final class Ticket {
        final String operation;
        final String group;
        final int index;
        boolean caughtByFence;
        boolean settled;

        private Ticket(String operation, String group, int index) {
            this.operation = operation;
            this.group = group;
            this.index = index;
        }

        /** The operation ended (returned or threw). */
        void leave() {
            AdmissionGate.this.leave(this);
        }
    }

    /** Enters the gate, or throws (and journals the rejection) when the pool is closing. */
    Ticket enter(String operation, String group, int index) {
        synchronized (this) {
            if (!fenced) {
                Ticket t = new Ticket(operation, group, index);
                inFlight.add(t);
                return t;
            }
        }
        long id = closeIdNow();
        journal.append(new AdmissionRejected(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, operation,
                group, index));
        throw new AdmissionClosedException(poolId, operation, group, index, id);
    }

    private synchronized long closeIdNow() {
        return closeId;
    }

    synchronized boolean isFenced() {
        return fenced;
    }

    /** Closes the gate for close {@code id} (again, for a retry); returns how many operations are in flight. */
    synchronized int fence(long id) {
        fenced = true;
        closeId = id;
        for (Ticket t : inFlight) {
            t.caughtByFence = true;
        }
        return inFlight.size();
    }

    /**
     * Waits up to {@code settleNanos} for the operations caught by the fence to return (one on a child
     * that has exited usually has its result already in the mailbox), then gives up on the rest.
     */
    void abandon(long id, long settleNanos) throws InterruptedException {
        Ticket[] left;
        synchronized (this) {
            long deadline = System.nanoTime() + settleNanos;
            while (inFlight.stream().anyMatch(t -> t.caughtByFence && !t.settled)) {
                long wait = deadline - System.nanoTime();
                if (wait <= 0) {
                    break;
                }
                wait(Math.max(1, wait / 1_000_000), (int) (wait % 1_000_000));
            }
            left = inFlight.stream().filter(t -> t.caughtByFence && !t.settled).toArray(Ticket[]::new);
            for (Ticket t : left) {
                t.settled = true;
                inFlight.remove(t); // given up: a retry's fence no longer counts it, its late leave() is silent
            }
        }
        for (Ticket t : left) {
            journal.append(new InFlightSettled(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, t.operation,
                    t.group, t.index, ABANDONED));
        }
    }

    private void leave(Ticket t) {
        boolean report;
        long id;
        synchronized (this) {
            if (!inFlight.remove(t)) {
                return;
            }
            report = t.caughtByFence && !t.settled;
            t.settled = true;
            id = closeId;
            notifyAll();
        }
        if (report) {
            journal.append(new InFlightSettled(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, t.operation,
                    t.group, t.index, FINISHED));
        }
    }
}
