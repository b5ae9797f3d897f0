package dev.vigil.pool;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import dev.vigil.close.ClosingChild;
import dev.vigil.close.PoolJournal;
import dev.vigil.journal.AdmissionRejected;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.MonotonicClock;

/**
 * A pool's admission fence. Operations (control commands, tasks, new children) enter through it and
 * leave when done; once {@link #fence} has run, entering fails with {@link AdmissionClosedException}
 * (journaled as AdmissionRejected). An operation in flight at the fence settles exactly once
 * (InFlightSettled): FINISHED when it leaves (or, for a command sent without a waiting caller, when the close
 * reads its result from the mailbox), FAILED when its child exited before completing it, ABANDONED when the
 * close reports while it still runs on a survivor. Nothing here waits.
 */
final class AdmissionGate {
    static final String FINISHED = "FINISHED";
    static final String FAILED = "FAILED";
    static final String ABANDONED = "ABANDONED";

    private final String poolId;
    private final PoolJournal journal;
    private final Set<Ticket> inFlight = new LinkedHashSet<>();
    private boolean fenced;
    private long closeId;
    private Runnable onSettled = () -> { };

    AdmissionGate(String poolId, PoolJournal journal) {
        this.poolId = poolId;
        this.journal = journal;
    }

    /** One operation inside the gate. */
    final class Ticket {
        final String operation;
        final String group;
        final int index;
        /** The child it works on; null for a spawn. */
        final PoolChild child;
        /** A command placed without a caller waiting for it (sendControl): the close settles it from the mailbox. */
        volatile boolean unattended;
        boolean caughtByFence;
        /** Its InFlightSettled claimed (exactly one is journaled). */
        boolean settled;
        /**
         * Its InFlightSettled journaled: only then does the close count it as ended, so that nothing the close does
         * once the operation ended (its mailbox released) is journaled before it.
         */
        boolean ended;

        private Ticket(String operation, String group, int index, PoolChild child) {
            this.operation = operation;
            this.group = group;
            this.index = index;
            this.child = child;
        }

        /** The operation ended (returned or threw). */
        void leave() {
            AdmissionGate.this.leave(this);
        }
    }

    /** Enters the gate, or throws (and journals the rejection) when the pool is closing. */
    Ticket enter(String operation, String group, int index, PoolChild child) {
        synchronized (this) {
            if (!fenced) {
                Ticket t = new Ticket(operation, group, index, child);
                inFlight.add(t);
                return t;
            }
        }
        long id = closeIdNow();
        journal.append(new AdmissionRejected(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, operation,
                group, index));
        throw new AdmissionClosedException(poolId, operation, group, index, id);
    }

    synchronized long closeIdNow() {
        return closeId;
    }

    synchronized boolean isFenced() {
        return fenced;
    }

    /**
     * Closes the gate for close {@code id} (again, for a retry); returns how many operations are in flight.
     * {@code settled} runs whenever one of them ends.
     */
    synchronized int fence(long id, Runnable settled) {
        fenced = true;
        closeId = id;
        onSettled = settled;
        for (Ticket t : inFlight) {
            t.caughtByFence = true;
        }
        return inFlight.size();
    }

    /**
     * Settles, without waiting, what the mailboxes already answer among the operations caught by the fence whose
     * child {@code on} accepts (null: a spawn): an unattended command whose result is published (FINISHED) or whose
     * child is gone (FAILED). True when every one of them has ended.
     */
    boolean settle(long id, Predicate<ClosingChild> on) {
        List<Ticket> open;
        synchronized (this) {
            open = new ArrayList<>();
            for (Ticket t : inFlight) {
                if (t.caughtByFence && !t.ended) {
                    open.add(t);
                }
            }
        }
        boolean all = true;
        for (Ticket t : open) {
            if (!on.test(t.child)) {
                continue;
            }
            if (isBeingJournaled(t)) {
                all = false; // its sender's leave() is journaling it now
                continue;
            }
            if (t.unattended && t.child != null && t.child.mailbox().settlePending()) {
                settleNow(t, id, t.child.mailbox().lastCommandCompleted() ? FINISHED : FAILED);
                continue;
            }
            all = false;
        }
        return all;
    }

    /** Journals ABANDONED for every operation caught by the fence that is still running, and stops counting them. */
    void abandon(long id) {
        List<Ticket> left = new ArrayList<>();
        synchronized (this) {
            for (Ticket t : inFlight) {
                if (t.caughtByFence && !t.settled) {
                    t.settled = true;
                    left.add(t);
                }
            }
            inFlight.removeAll(left); // given up: a retry's fence no longer counts it, its late leave() is silent
        }
        for (Ticket t : left) {
            journal.append(new InFlightSettled(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, t.operation,
                    t.group, t.index, ABANDONED));
        }
    }

    private synchronized boolean isBeingJournaled(Ticket t) {
        return t.settled && !t.ended;
    }

    private void settleNow(Ticket t, long id, String outcome) {
        synchronized (this) {
            if (t.settled) {
                return;
            }
            t.settled = true;
            // stays in inFlight until its sender's await leaves (silently), so a retry still counts nothing twice
        }
        journal.append(new InFlightSettled(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, t.operation,
                t.group, t.index, outcome));
        synchronized (this) {
            t.ended = true;
        }
    }

    private void leave(Ticket t) {
        boolean report;
        long id;
        Runnable notify;
        synchronized (this) {
            if (!inFlight.contains(t)) {
                return;
            }
            report = t.caughtByFence && !t.settled;
            t.settled = true;
            id = closeId;
            notify = onSettled;
            if (!report) {
                inFlight.remove(t);
                t.ended = true;
                return;
            }
        }
        // journaled while it still counts as in flight: the close cannot release its mailbox before this is written
        journal.append(new InFlightSettled(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, id, t.operation,
                t.group, t.index, FINISHED));
        synchronized (this) {
            inFlight.remove(t);
            t.ended = true;
        }
        notify.run();
    }
}
