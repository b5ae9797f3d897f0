package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import dev.vigil.close.decision.CloseDecisionAudit;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.MailboxWords;
import dev.vigil.journal.BudgetSpent;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.CloseAborted;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxReleased;

import org.junit.jupiter.api.Test;

/**
 * The close state machine driven by a virtual clock and scripted inputs: thousands of random orders of exits,
 * acks, beats, ticks, operations ending and escalations, each checked against the machine's invariants and against
 * the decision audit (the decisions re-run from the journal it wrote). No threads, no processes: one seed is one run,
 * and a failing seed reproduces exactly.
 */
class CloseMachineTest {
    private static final long MS = 1_000_000L;
    private static final long TICK = CloseEngine.TICK_NANOS;

    /** One simulated close: the world around the machine. */
    static final class World {
        final Random random;
        long now = 1_000_000 * MS;
        final List<JournalEvent> journal = new ArrayList<>();
        final Deque<Runnable> inputs = new ArrayDeque<>();
        final PriorityQueue<Timed> timeline = new PriorityQueue<>();
        long seq;
        final CloseMachine machine;

        World(long seed) {
            random = new Random(seed);
            machine = new CloseMachine(new CloseJournal() {
                @Override
                public void append(JournalEvent event) {
                    journal.add(event);
                }

                @Override
                public List<String> lastEvents(String poolId, String group, int index) {
                    return List.of();
                }

                @Override
                public int orchestratorPid() {
                    return 4242;
                }
            }, new CloseMachine.Inputs() {
                @Override
                public void childExited(CloseMachine.Run run, CloseMachine.Track track, ChildExit exit) {
                    later(() -> machine.childExited(run, track, exit));
                }

                @Override
                public void settled(long closeId) {
                    later(() -> machine.settled(closeId));
                }

                @Override
                public void evidenceCaptured(long closeId) {
                    later(() -> machine.evidenceCaptured(closeId));
                }
            }, () -> now);
        }

        /** An input reaches the ring after a random 0-3 ms (another producer's thread, the reaper...). */
        void later(Runnable input) {
            at(now + random.nextInt(4) * MS, input);
        }

        void at(long time, Runnable r) {
            timeline.add(new Timed(time, random.nextLong(), seq++, r));
        }

        /** Runs until {@code done} or {@code until}: timed happenings and ticks, in time order, ties in random order. */
        void run(CompletableFuture<?> done, long until) {
            long nextTick = now + random.nextInt((int) TICK);
            while (!done.isDone() && now < until) {
                Timed t = timeline.peek();
                if (t == null || t.time > nextTick) {
                    now = Math.max(now, nextTick);
                    machine.tick();
                    nextTick += TICK;
                    continue;
                }
                timeline.poll();
                now = Math.max(now, t.time);
                t.action.run();
                machine.endOfBatch(); // as the engine after each batch of inputs (here: of one)
            }
        }
    }

    record Timed(long time, long tie, long seq, Runnable action) implements Comparable<Timed> {
        @Override
        public int compareTo(Timed o) {
            int c = Long.compare(time, o.time);
            return c != 0 ? c : Long.compare(tie, o.tie);
        }
    }

    /** A child with a script: when (if ever) it acks, beats, exits, whether SIGTERM ends it. */
    static class Child implements ClosingChild {
        final World w;
        final String group;
        final int index;
        final long ackAfter;
        final long beatEvery;
        final long beatFor;
        final long exitAfter;
        final boolean diesOnTerm;
        final boolean goneBefore;
        final CompletableFuture<ChildExit> exit = new CompletableFuture<>();
        long shutdownAt = -1;
        boolean released;
        long reapedAt = -1;
        /** How many events were journaled when it exited (its exit stage completed), -1 while it runs. */
        int exitedAfterEvents = -1;
        /** When its transition ring was journaled (the last time), -1 never; a drain after the release is wrong. */
        long drainedAt = -1;
        boolean drainedAfterRelease;
        /** Its shutdown delivery throws: a failure inside the close (not the child's doing). */
        boolean deliveryThrows;

        Child(World w, String group, int index, long ackAfter, long beatEvery, long beatFor, long exitAfter,
                boolean diesOnTerm, boolean goneBefore) {
            this.w = w;
            this.group = group;
            this.index = index;
            this.ackAfter = ackAfter;
            this.beatEvery = beatEvery;
            this.beatFor = beatFor;
            this.exitAfter = exitAfter;
            this.diesOnTerm = diesOnTerm;
            this.goneBefore = goneBefore;
            if (goneBefore) {
                end(0, 0);
            }
        }

        void end(int code, int signal) {
            if (!exit.isDone()) {
                reapedAt = w.now;
                exitedAfterEvents = w.journal.size();
                exit.complete(new ChildExit(signal > 0 ? -1 : code, signal, w.now));
            }
        }

        @Override public String group() { return group; }
        @Override public int index() { return index; }
        @Override public int pid() { return 2_000_000_000 + index; }
        @Override public String kind() { return "C"; }
        @Override public boolean hasMailbox() { return true; }
        @Override public CompletableFuture<ChildExit> exit() { return exit; }
        @Override public void failPendingCommands(java.util.function.Supplier<String> reason) { }
        @Override public long mailboxOffset() { return 4096L * (index + 1); }

        @Override
        public void drainTransitions(long closeId) {
            drainedAfterRelease |= released;
            drainedAt = w.now;
        }

        @Override
        public ShutdownDelivery deliverShutdown(long epoch) {
            if (deliveryThrows) {
                throw new ArithmeticException("long overflow");
            }
            shutdownAt = w.now;
            if (exitAfter >= 0) {
                w.at(w.now + exitAfter, () -> end(index, 0));
            }
            return new ShutdownDelivery(ShutdownDelivery.SHUTDOWN_WORD, true, 0, w.now);
        }

        @Override
        public MailboxWords mailboxWords() {
            if (released) {
                return null;
            }
            long ack = shutdownAt >= 0 && ackAfter >= 0 && w.now >= shutdownAt + ackAfter ? shutdownAt + ackAfter : 0;
            long beats = 0;
            if (shutdownAt >= 0 && beatEvery > 0) {
                long until = Math.min(w.now, shutdownAt + beatFor);
                beats = Math.max(0, (until - shutdownAt) / beatEvery);
            }
            return new MailboxWords(0, "IDLE", "CHILD", 1, false, shutdownAt >= 0 ? 1 : 0, ack, 7 + beats);
        }

        @Override
        public boolean signal(int signal) {
            w.later(() -> end(0, signal));
            return true;
        }

        @Override
        public boolean signalProcessGroup(int signal) {
            if (signal == 9 || diesOnTerm) {
                w.later(() -> end(0, signal));
            }
            return true;
        }

        @Override
        public boolean tryReleaseMailbox() {
            assertTrue(exit.isDone(), "released before reaped: " + this);
            assertFalse(released, "released twice: " + this);
            released = true;
            return true;
        }

        @Override
        public String toString() {
            return group + "/" + index;
        }
    }

    /** A pool with operations in flight at the fence: each ends at its time (or never, on a survivor). */
    static class Target implements CloseTarget {
        final World w;
        final CloseSettings settings;
        final List<Child> children;
        final Map<Child, Long> opEnds = new HashMap<>();
        Runnable onSettled;
        CloseReport finished;
        String poolId = "sim";

        Target(World w, CloseSettings settings, List<Child> children) {
            this.w = w;
            this.settings = settings;
            this.children = children;
        }

        @Override public String poolId() { return poolId; }
        @Override public CloseSettings closeSettings() { return settings; }
        @Override public List<? extends ClosingChild> trackedChildren() { return children; }
        @Override public List<? extends ClosingChild> takeLateJoiners() { return List.of(); }
        @Override public void abandonInFlight(long closeId) { }
        @Override public void closeFinished(CloseReport report) { finished = report; }

        @Override
        public int fenceAdmission(long closeId, Runnable settled) {
            this.onSettled = settled;
            for (Map.Entry<Child, Long> op : opEnds.entrySet()) {
                w.at(op.getValue(), settled);
            }
            return opEnds.size();
        }

        @Override
        public boolean settleInFlight(long closeId, Predicate<ClosingChild> on) {
            for (Map.Entry<Child, Long> op : opEnds.entrySet()) {
                boolean ended = op.getValue() <= w.now || op.getValue() == Long.MAX_VALUE && op.getKey().exit.isDone();
                if (!ended && on.test(op.getKey())) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Builds a random close, runs it, and returns what went wrong (empty when every invariant holds). */
    static List<String> simulate(long seed, boolean escalateNowMidway) {
        World w = new World(seed);
        Target target = randomClose(w);
        EscalationPolicy policy = target.settings.escalation();
        long window = target.settings.window().toNanos();
        Random r = w.random;
        CompletableFuture<CloseReport> result = new CompletableFuture<>();
        long closeId = 77;
        w.at(w.now, () -> w.machine.closeRequested(target, closeId, result));
        if (escalateNowMidway) {
            w.at(w.now + r.nextInt((int) (2 * window / MS)) * MS, () -> w.machine.escalateNow(closeId));
        }
        long bound = w.now + 10 * window + 60_000 * MS;
        w.run(result, bound);
        return check(w.journal, target, result, policy, escalateNowMidway);
    }

    /**
     * Several closes of different pools in one machine, requested at random times, their inputs interleaved: each
     * close, read from its own slice of the one journal, keeps every invariant, and none waits for another.
     */
    static List<String> simulateMany(long seed) {
        World w = new World(seed);
        Random r = w.random;
        int n = 2 + r.nextInt(5);
        List<Target> targets = new ArrayList<>();
        List<CompletableFuture<CloseReport>> results = new ArrayList<>();
        List<Boolean> escalated = new ArrayList<>();
        long bound = w.now;
        for (int k = 0; k < n; k++) {
            Target t = randomClose(w);
            t.poolId = "sim" + k;
            targets.add(t);
            CompletableFuture<CloseReport> result = new CompletableFuture<>();
            results.add(result);
            long closeId = 100 + k;
            long window = t.settings.window().toNanos();
            long at = w.now + r.nextInt(500) * MS;
            w.at(at, () -> w.machine.closeRequested(t, closeId, result));
            boolean esc = r.nextInt(5) == 0;
            escalated.add(esc);
            if (esc) {
                w.at(at + r.nextInt((int) (2 * window / MS)) * MS, () -> w.machine.escalateNow(closeId));
            }
            bound = Math.max(bound, at + 10 * window + 60_000 * MS);
        }
        w.run(CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)), bound);
        List<String> bad = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            long closeId = 100 + k;
            List<JournalEvent> slice = w.journal.stream().filter(e -> e.closeId() == closeId).toList();
            for (String b : check(slice, targets.get(k), results.get(k), targets.get(k).settings.escalation(),
                    escalated.get(k))) {
                bad.add("close " + closeId + ": " + b);
            }
            if (!slice.isEmpty() && slice.get(0) instanceof CloseStarted cs && cs.overlappingCloses() < 1) {
                bad.add("close " + closeId + " counts no overlapping close (itself)");
            }
        }
        if (!w.machine.idle()) {
            bad.add("machine not idle after every close completed");
        }
        return bad;
    }

    /** A random pool: 1-5 children with scripted acks, beats, exits and terminations, and operations in flight. */
    static Target randomClose(World w) {
        Random r = w.random;
        long window = (50 + r.nextInt(400)) * MS;
        EscalationPolicy policy = r.nextBoolean() ? EscalationPolicy.LEAK : EscalationPolicy.TERM_THEN_KILL;
        CloseSettings settings = CloseSettings.builder().window(Duration.ofNanos(window)).escalation(policy)
                .grace(Duration.ofMillis(10 + r.nextInt(200))).build();
        List<Child> children = new ArrayList<>();
        int n = 1 + r.nextInt(5);
        for (int i = 0; i < n; i++) {
            int kind = r.nextInt(6);
            long exitAfter = switch (kind) {
                case 0 -> -1; // never by itself
                case 1 -> window * (1 + r.nextInt(3)); // slow, maybe beating through it
                default -> r.nextInt((int) (window / MS)) * MS;
            };
            long beatEvery = r.nextBoolean() ? (5 + r.nextInt(40)) * MS : 0;
            // Beating forever after an ack holds a close open for ever (no hard cap here): beats end by 3 windows.
            long beatFor = r.nextInt(3 * (int) (window / MS)) * MS;
            children.add(new Child(w, "g", i, r.nextInt(4) == 0 ? -1 : r.nextInt(30) * MS, beatEvery, beatFor,
                    exitAfter, r.nextBoolean(), r.nextInt(10) == 0));
        }
        Target target = new Target(w, settings, children);
        for (Child c : children) {
            if (r.nextInt(3) == 0) {
                // an operation caught by the fence: ends on its own, or only when its child goes
                target.opEnds.put(c, r.nextBoolean() ? w.now + r.nextInt(600) * MS : Long.MAX_VALUE);
            }
        }
        return target;
    }

    static List<String> check(List<JournalEvent> j, Target target, CompletableFuture<CloseReport> result,
            EscalationPolicy policy, boolean escalateNow) {
        List<String> bad = new ArrayList<>();
        if (!result.isDone()) {
            bad.add("close never completed");
            return bad;
        }
        CloseReport report = result.join();
        if (!(j.get(0) instanceof CloseStarted started) || !(j.get(j.size() - 1) instanceof CloseCompleted)) {
            bad.add("journal does not run CloseStarted .. CloseCompleted: " + j);
            return bad;
        }
        CloseDecisionAudit audit = new CloseDecisionAudit(started);
        j.forEach(audit::accept);
        bad.addAll(audit.differences());
        Map<String, Integer> reapedAt = new HashMap<>();
        Map<String, Integer> escalatedAt = new HashMap<>();
        for (int i = 0; i < j.size(); i++) {
            JournalEvent e = j.get(i);
            if (e instanceof ChildReaped c && reapedAt.put(c.group() + "/" + c.index(), i) != null) {
                bad.add("reaped twice: " + c);
            }
            if (e instanceof EscalationSent s) {
                escalatedAt.putIfAbsent(s.group() + "/" + s.index(), i);
                for (Child c : target.children) {
                    if (c.index == s.index() && c.exitedAfterEvents >= 0 && c.exitedAfterEvents <= indexOf(c.w.journal, s)) {
                        bad.add("escalation sent to " + c + " after it had exited on its own: " + s);
                    }
                }
                if (policy == EscalationPolicy.LEAK && !escalateNow) {
                    bad.add("escalation under leak: " + s);
                }
            }
            if (e instanceof MailboxReleased m) {
                Integer reap = reapedAt.get(m.group() + "/" + m.index());
                if (reap == null) {
                    bad.add("released before its reap: " + m);
                }
                for (Map.Entry<Child, Long> op : target.opEnds.entrySet()) {
                    if (op.getKey().index == m.index() && op.getValue() != Long.MAX_VALUE && op.getValue() > m.timeNanos()) {
                        bad.add("released at " + m.timeNanos() + " before the operation on it ended at " + op.getValue());
                    }
                    // the caller's own transitions (its command's end) are in the ring: drained after they are written
                    if (op.getKey().index == m.index() && op.getValue() != Long.MAX_VALUE
                            && op.getKey().drainedAt < op.getValue()) {
                        bad.add("ring drained at " + op.getKey().drainedAt + " before the operation on it ended at "
                                + op.getValue());
                    }
                }
            }
        }
        assertEquals(target.children.size(), report.children().size());
        for (Child c : target.children) {
            String k = c + "";
            CloseReport.Child rc = report.child(c.group, c.index);
            boolean reaped = reapedAt.containsKey(k);
            if (reaped != c.exit.isDone() && rc.outcome() != CloseReport.ChildOutcome.SURVIVOR) {
                bad.add("child " + k + " reaped=" + reaped + " but exited=" + c.exit.isDone());
            }
            CloseReport.ChildOutcome expected = CloseReport.ChildOutcome.of(reaped,
                    reaped && escalatedAt.containsKey(k) && escalatedAt.get(k) < reapedAt.get(k),
                    reaped ? c.exit.join().signal() : 0);
            if (rc.outcome() != expected) {
                bad.add("child " + k + " outcome=" + rc.outcome() + " expected=" + expected);
            }
            if (rc.outcome() == CloseReport.ChildOutcome.SURVIVOR && c.released) {
                bad.add("survivor " + k + " lost its mailbox");
            }
            if (reaped && !c.released) {
                bad.add("reaped " + k + " kept its mailbox");
            }
            if (c.released && (c.drainedAt < 0 || c.drainedAfterRelease)) {
                bad.add("released " + k + " without its ring drained first");
            }
        }
        if (report.outcome() != CloseReport.outcomeOf(report.children())) {
            bad.add("close outcome " + report.outcome() + " disagrees with its children");
        }
        boolean spent = j.stream().anyMatch(e -> e instanceof BudgetSpent);
        if (!report.survivors().isEmpty() && !spent) {
            bad.add("survivors without a spent budget");
        }
        if (target.finished != report) {
            bad.add("closeFinished not told the report");
        }
        return bad;
    }

    /** Where {@code e} itself (not an equal event) stands in the whole journal {@code j}. */
    private static int indexOf(List<JournalEvent> j, JournalEvent e) {
        for (int i = 0; i < j.size(); i++) {
            if (j.get(i) == e) {
                return i;
            }
        }
        throw new AssertionError("not journaled: " + e);
    }

    @Test
    void thousandsOfRandomOrdersOfExitsAcksBeatsTicksAndOperationsKeepEveryInvariant() {
        int runs = Integer.getInteger("vigil.test.machineRuns", 3000);
        for (long seed = 1; seed <= runs; seed++) {
            List<String> bad = simulate(seed, seed % 7 == 0);
            assertEquals(List.of(), bad, "seed=" + seed);
        }
    }

    @Test
    void aFailureInsideACloseIsJournaledAsCloseAbortedAndFailsOnlyThatClose() {
        World w = new World(11);
        Child broken = new Child(w, "g", 0, 1 * MS, 0, 0, 5 * MS, false, false);
        broken.deliveryThrows = true;
        Child fine = new Child(w, "g", 0, 1 * MS, 0, 0, 5 * MS, false, false);
        CloseSettings settings = CloseSettings.builder().window(Duration.ofMillis(100)).build();
        Target brokenPool = new Target(w, settings, List.of(broken));
        Target finePool = new Target(w, settings, List.of(fine));
        brokenPool.poolId = "broken";
        finePool.poolId = "fine";
        CompletableFuture<CloseReport> failed = new CompletableFuture<>();
        CompletableFuture<CloseReport> clean = new CompletableFuture<>();
        w.at(w.now, () -> w.machine.closeRequested(brokenPool, 1, failed));
        w.at(w.now, () -> w.machine.closeRequested(finePool, 2, clean));
        w.run(CompletableFuture.allOf(failed.exceptionally(x -> null), clean), w.now + 10_000 * MS);
        assertTrue(failed.isCompletedExceptionally(), "the broken close fails its caller");
        assertEquals(CloseReport.Outcome.CLEAN, clean.join().outcome(), "the other close goes on");
        List<CloseAborted> aborted = w.journal.stream().filter(e -> e instanceof CloseAborted)
                .map(e -> (CloseAborted) e).toList();
        assertEquals(1, aborted.size(), "journaled: " + w.journal);
        assertEquals(1, aborted.get(0).closeId());
        assertEquals(1, aborted.get(0).unreaped());
        assertTrue(aborted.get(0).reason().contains("long overflow"), aborted.get(0).reason());
        assertTrue(w.machine.idle(), "nothing left running in the machine");
    }

    /**
     * A child whose exit status someone else took (its exit future fails with the reap's "exit status lost") gets no
     * exit input, ever: the close must end anyway, at its budget, with that child reported (EXIT_STATUS_LOST) and never
     * signalled, its pid possibly another process's now. The machine used to wait at the end of its plan for an exit
     * input of a child whose future was done, and the close never ended.
     */
    @Test
    void aChildWhoseExitStatusWasLostEndsTheCloseAtItsBudgetReportedAndNeverSignalled() {
        World w = new World(3);
        Child lost = new Child(w, "g", 0, 1 * MS, 0, 0, -1, false, false) {
            @Override
            public ShutdownDelivery deliverShutdown(long epoch) {
                ShutdownDelivery d = super.deliverShutdown(epoch);
                w.at(w.now + 2 * MS, () -> exit.completeExceptionally(new java.util.concurrent.CompletionException(
                        new IllegalStateException("exit status lost: pid=" + pid() + " waitpid errno=10 (No child processes)"))));
                return d;
            }

            @Override
            public boolean signal(int signal) {
                throw new AssertionError("signalled a lost child: " + signal);
            }

            @Override
            public boolean signalProcessGroup(int signal) {
                throw new AssertionError("signalled a lost child's group: " + signal);
            }
        };
        Child fine = new Child(w, "g", 1, 1 * MS, 0, 0, 5 * MS, false, false);
        Target target = new Target(w, CloseSettings.builder().window(Duration.ofMillis(100))
                .escalation(EscalationPolicy.TERM_THEN_KILL).build(), List.of(lost, fine));
        CompletableFuture<CloseReport> result = new CompletableFuture<>();
        long start = w.now;
        w.at(w.now, () -> w.machine.closeRequested(target, 1, result));
        w.run(result, w.now + 60_000 * MS);
        assertTrue(result.isDone(), "the close never ended: " + w.journal);
        CloseReport report = result.join();
        assertTrue(report.outcome() != CloseReport.Outcome.CLEAN, report.toJson());
        assertTrue(report.toJson().contains("EXIT_STATUS_LOST") && report.toJson().contains("errno=10"), report.toJson());
        assertTrue(w.now - start < 10_000 * MS, "ended at its budget, not at the test's bound");
        assertTrue(w.journal.stream().noneMatch(e -> e instanceof dev.vigil.journal.EscalationSent
                && ((dev.vigil.journal.EscalationSent) e).index() == 0), "no signal journaled for the lost child");
        assertTrue(w.machine.idle(), "nothing left running in the machine");
    }

    @Test
    void aChildThatKeepsBeatingAfterItsAckHoldsTheCloseOpenUntilItExits() {
        World w = new World(5);
        long window = 100 * MS;
        Child slow = new Child(w, "g", 0, 1 * MS, 20 * MS, Long.MAX_VALUE / 4, 3_000 * MS, false, false);
        Target target = new Target(w, CloseSettings.builder().window(Duration.ofNanos(window)).build(), List.of(slow));
        CompletableFuture<CloseReport> result = new CompletableFuture<>();
        long start = w.now;
        w.at(w.now, () -> w.machine.closeRequested(target, 1, result));
        w.run(result, w.now + 60_000 * MS);
        assertEquals(CloseReport.Outcome.CLEAN, result.join().outcome(), result.join().toJson());
        assertTrue(w.now - start >= 3_000 * MS, "held open 3 s by a 100 ms window, beat by beat");
        assertEquals(List.of(), check(w.journal, target, result, EscalationPolicy.LEAK, false));
    }

    @Test
    void thousandsOfClosesOfManyPoolsInterleavedInOneMachineEachKeepEveryInvariant() {
        int runs = Integer.getInteger("vigil.test.machineRuns", 3000) / 3;
        for (long seed = 1; seed <= runs; seed++) {
            List<String> bad = simulateMany(seed);
            assertEquals(List.of(), bad, "seed=" + seed);
        }
    }

    @Test
    void aCloseHeldOpenSixtyVirtualSecondsByABeatingChildHoldsBackNoneOfTwoHundredOthers() {
        World w = new World(11);
        long window = 500 * MS;
        Child beating = new Child(w, "g", 0, 1 * MS, 20 * MS, Long.MAX_VALUE / 4, 60_000 * MS, false, false);
        Target held = new Target(w, CloseSettings.builder().window(Duration.ofNanos(window)).build(), List.of(beating));
        held.poolId = "held";
        CompletableFuture<CloseReport> heldResult = new CompletableFuture<>();
        long start = w.now;
        w.at(start, () -> w.machine.closeRequested(held, 1, heldResult));
        List<CompletableFuture<CloseReport>> others = new ArrayList<>();
        List<Long> requestedAt = new ArrayList<>();
        for (int k = 0; k < 200; k++) {
            Child a = new Child(w, "g", 0, 1 * MS, 0, 0, 5 * MS, false, false);
            Child b = new Child(w, "g", 1, 2 * MS, 0, 0, 10 * MS, false, false);
            Target t = new Target(w, CloseSettings.builder().window(Duration.ofNanos(window)).build(), List.of(a, b));
            t.poolId = "other" + k;
            CompletableFuture<CloseReport> f = new CompletableFuture<>();
            long at = start + (k + 1) * 250 * MS; // one every 250 ms across the 60 s
            requestedAt.add(at);
            long id = 1000 + k;
            w.at(at, () -> w.machine.closeRequested(t, id, f));
            others.add(f);
        }
        w.run(heldResult, start + 120_000 * MS);
        assertTrue(heldResult.isDone(), "the held close ends once its child exits");
        assertTrue(w.now - start >= 60_000 * MS, "held open 60 s by its beating child");
        for (int k = 0; k < 200; k++) {
            CloseReport r = others.get(k).getNow(null);
            assertTrue(r != null && r.isClean(), "other close " + k + " completed cleanly while one was held");
            long id = 1000 + k;
            long done = w.journal.stream().filter(e -> e instanceof CloseCompleted c && c.closeId() == id)
                    .mapToLong(JournalEvent::timeNanos).findFirst().orElseThrow();
            // its children exit 5 and 10 ms after the broadcast; inputs arrive within 3 ms; the tick is 20 ms
            assertTrue(done - requestedAt.get(k) < 10 * MS + 3 * MS + TICK + 3 * MS,
                    "close " + k + " took " + (done - requestedAt.get(k)) / MS + " ms");
        }
    }

    @Test
    void aReapedChildsMailboxIsReleasedAtItsOwnReapWhileTheOthersStillRun() {
        for (long seed = 1; seed <= 50; seed++) {
            World w = new World(seed);
            Child early = new Child(w, "g", 0, 0, 0, 0, 5 * MS, false, false);
            Child busy = new Child(w, "g", 1, 0, 0, 0, 10 * MS, false, false);
            Child late = new Child(w, "g", 2, 0, 0, 0, 400 * MS, false, false);
            Target t = new Target(w, CloseSettings.builder().window(Duration.ofSeconds(2)).build(),
                    List.of(early, busy, late));
            long opEnd = w.now + 150 * MS;
            t.opEnds.put(busy, opEnd); // an operation on it runs past its exit: its release waits for that end
            CompletableFuture<CloseReport> result = new CompletableFuture<>();
            w.at(w.now, () -> w.machine.closeRequested(t, 5, result));
            w.run(result, w.now + 10_000 * MS);
            assertEquals(List.of(), check(w.journal, t, result, EscalationPolicy.LEAK, false), "seed=" + seed);
            long lateReaped = w.journal.stream().filter(e -> e instanceof ChildReaped r && r.index() == 2)
                    .mapToLong(JournalEvent::timeNanos).findFirst().orElseThrow();
            for (int index : new int[] {0, 1}) {
                MailboxReleased m = w.journal.stream().filter(e -> e instanceof MailboxReleased r && r.index() == index)
                        .map(MailboxReleased.class::cast).findFirst().orElseThrow();
                assertTrue(m.timeNanos() < lateReaped, "seed=" + seed + " child " + index + " released at "
                        + m.timeNanos() + ", not before the last reap at " + lateReaped);
            }
            long busyReleased = w.journal.stream().filter(e -> e instanceof MailboxReleased r && r.index() == 1)
                    .mapToLong(JournalEvent::timeNanos).findFirst().orElseThrow();
            assertTrue(busyReleased >= opEnd && busyReleased <= opEnd + TICK + 3 * MS,
                    "seed=" + seed + " released at the end of the operation on it (or the next tick), not later");
        }
    }

    @Test
    void aReapedChildsMailboxWaitsWhileAnotherProcessIsInItsPoolsContainer() {
        // A descendant forked by a reaped child inherits its mailbox mapping: while the container holds a process that
        // is no running direct child, no mailbox is freed at a reap (the sweep deals with it first).
        for (long seed = 1; seed <= 50; seed++) {
            World w = new World(seed);
            Child early = new Child(w, "g", 0, 0, 0, 0, 5 * MS, false, false);
            Child late = new Child(w, "g", 1, 0, 0, 0, 300 * MS, false, false);
            long strayGone = w.now + 100 * MS;
            dev.vigil.contain.PoolContainment container = new dev.vigil.contain.PoolContainment() {
                @Override public dev.vigil.contain.ContainmentMode mode() { return dev.vigil.contain.ContainmentMode.CGROUP; }
                @Override public java.nio.file.Path cgroup() { return java.nio.file.Path.of("/sim"); }
                @Override public String describe() { return "cgroup /sim"; }
                @Override public void childStarted(int pid) { }
                @Override public List<dev.vigil.contain.ContainedProcess> processes() { return new ArrayList<>(); }
                @Override public void signalEach(int signal) { }
                @Override public List<dev.vigil.contain.ContainedProcess> killAll() { return new ArrayList<>(); }
                @Override public boolean awaitEmpty(long nanos) { return true; }
                @Override public boolean isEmpty() { return true; }
                @Override public boolean remove() { return true; }

                @Override
                public List<Integer> pidsIfCheap() {
                    List<Integer> pids = new ArrayList<>();
                    if (w.now < strayGone) {
                        pids.add(3_000_000); // the early child's fork, still running
                    }
                    for (Child c : List.of(early, late)) {
                        if (!c.exit.isDone()) {
                            pids.add(c.pid());
                        }
                    }
                    return pids;
                }
            };
            Target t = new Target(w, CloseSettings.builder().window(Duration.ofSeconds(2)).build(), List.of(early, late)) {
                @Override
                public dev.vigil.contain.PoolContainment containment() {
                    return container;
                }
            };
            CompletableFuture<CloseReport> result = new CompletableFuture<>();
            w.at(w.now, () -> w.machine.closeRequested(t, 6, result));
            w.run(result, w.now + 10_000 * MS);
            assertEquals(List.of(), check(w.journal, t, result, EscalationPolicy.LEAK, false), "seed=" + seed);
            long released = w.journal.stream().filter(e -> e instanceof MailboxReleased r && r.index() == 0)
                    .mapToLong(JournalEvent::timeNanos).findFirst().orElseThrow();
            assertTrue(released >= strayGone, "seed=" + seed + " released at " + released + " while its fork ran (until "
                    + strayGone + ")");
            assertTrue(released < late.reapedAt, "seed=" + seed + " released once the fork was gone, at its own pace");
        }
    }

    @Test
    void theCheckerCatchesAMachineThatReleasesBeforeTheOperationsSettle() {
        // The broken variant: a target that says every operation ended. The checker must see the early release.
        int caught = 0;
        for (long seed = 1; seed <= 400 && caught == 0; seed++) {
            World w = new World(seed);
            Child c = new Child(w, "g", 0, 0, 0, 0, 5 * MS, false, false);
            Target honest = new Target(w, CloseSettings.builder().window(Duration.ofMillis(100)).build(), List.of(c));
            honest.opEnds.put(c, w.now + 200 * MS);
            Target lying = new Target(w, honest.settings, List.of(c)) {
                @Override
                public boolean settleInFlight(long closeId, Predicate<ClosingChild> on) {
                    return true;
                }
            };
            lying.opEnds.putAll(honest.opEnds);
            CompletableFuture<CloseReport> result = new CompletableFuture<>();
            w.at(w.now, () -> w.machine.closeRequested(lying, 3, result));
            w.run(result, w.now + 10_000 * MS);
            if (check(w.journal, lying, result, EscalationPolicy.LEAK, false).stream().anyMatch(s -> s.contains("before the operation"))) {
                caught++;
            }
        }
        assertTrue(caught > 0, "the invariant check can fail");
    }

    @Test
    void theDecisionAuditFlagsAJournalWhoseBudgetSpendDoesNotFollowItsInputs() {
        for (long seed = 1; seed <= 200; seed++) {
            World w = new World(seed);
            Child stuck = new Child(w, "g", 0, 2 * MS, 0, 0, -1, false, false);
            Target t = new Target(w, CloseSettings.builder().window(Duration.ofMillis(100)).build(), List.of(stuck));
            CompletableFuture<CloseReport> result = new CompletableFuture<>();
            w.at(w.now, () -> w.machine.closeRequested(t, 9, result));
            w.run(result, w.now + 10_000 * MS);
            assertEquals(List.of(), check(w.journal, t, result, EscalationPolicy.LEAK, false));
            // Tamper: the spend moved 50 ms earlier, inside the window.
            List<JournalEvent> j = new ArrayList<>(w.journal);
            for (int i = 0; i < j.size(); i++) {
                if (j.get(i) instanceof BudgetSpent b) {
                    j.set(i, new BudgetSpent(b.timeNanos() - 50 * MS, b.orchestratorPid(), b.poolId(), b.closeId(),
                            b.budget(), b.reason(), b.lastProgressNanos(), b.survivors()));
                }
            }
            CloseDecisionAudit audit = new CloseDecisionAudit((CloseStarted) j.get(0));
            j.forEach(audit::accept);
            assertFalse(audit.differences().isEmpty(), "seed=" + seed + " tampered spend not flagged");
        }
    }
    /** Closes of TERM-ignoring children with a long window, escalated by the caller {@code at} after the request. */
    private static List<JournalEvent> escalatedClose(World w, EscalationPolicy policy, long at, boolean all,
            CompletableFuture<CloseReport> result) {
        Child a = new Child(w, "g", 0, 1 * MS, 0, 0, -1, false, false);
        Child b = new Child(w, "g", 1, -1, 0, 0, -1, false, false);
        Target t = new Target(w, CloseSettings.builder().window(Duration.ofSeconds(60)).escalation(policy)
                .grace(Duration.ofSeconds(30)).build(), List.of(a, b));
        w.at(w.now, () -> w.machine.closeRequested(t, 11, result));
        w.at(w.now + at, () -> {
            if (all) {
                w.machine.escalateAll("SIGINT");
            } else {
                w.machine.escalateNow(11, "SIGINT");
            }
        });
        w.run(result, w.now + 600_000 * MS);
        assertEquals(List.of(), check(w.journal, t, result, policy, true));
        return w.journal;
    }

    @Test
    void escalateNowDuringTheReapIsJournaledAndKillsAtOnceWhateverThePolicy() {
        for (EscalationPolicy policy : EscalationPolicy.values()) {
            World w = new World(3);
            long start = w.now;
            CompletableFuture<CloseReport> result = new CompletableFuture<>();
            List<JournalEvent> j = escalatedClose(w, policy, 500 * MS, false, result);
            assertTrue(w.now - start < 3_000 * MS, "ended " + (w.now - start) / MS + " ms after the request, not the 60 s window");
            List<String> kinds = j.stream().map(e -> e.type().name()).toList();
            int req = kinds.indexOf("ESCALATE_NOW_REQUESTED");
            assertTrue(req > 0 && kinds.indexOf("BUDGET_SPENT") == req + 1, kinds.toString());
            assertEquals(BudgetSpent.REASON_ESCALATE_NOW, ((BudgetSpent) j.get(req + 1)).reason());
            assertEquals(List.of(9, 9), j.stream().filter(e -> e instanceof EscalationSent).map(e -> ((EscalationSent) e).signal())
                    .toList(), "SIGKILL at once, no SIGTERM first: " + policy);
            assertEquals(List.of(CloseReport.ChildOutcome.KILLED_BY_ESCALATION, CloseReport.ChildOutcome.KILLED_BY_ESCALATION),
                    result.join().children().stream().map(CloseReport.Child::outcome).toList(), result.join().toJson());
        }
    }

    @Test
    void escalateNowDuringTheGraceSendsTheKillWithoutWaitingOutTheGrace() {
        World w = new World(4);
        long start = w.now;
        CompletableFuture<CloseReport> result = new CompletableFuture<>();
        // window 60 s then SIGTERM (ignored) and a 30 s grace; the caller escalates 61 s in.
        List<JournalEvent> j = escalatedClose(w, EscalationPolicy.TERM_THEN_KILL, 61_000 * MS, false, result);
        assertTrue(w.now - start < 63_000 * MS, "ended " + (w.now - start) / MS + " ms after the request, not after the grace");
        List<Integer> signals = j.stream().filter(e -> e instanceof EscalationSent).map(e -> ((EscalationSent) e).signal()).toList();
        assertEquals(List.of(15, 15, 9, 9), signals);
        assertEquals(BudgetSpent.REASON_BUDGET, j.stream().filter(e -> e instanceof BudgetSpent).map(e -> ((BudgetSpent) e).reason())
                .findFirst().orElseThrow());
    }

    @Test
    void escalateAllReachesTheClosesInProgressAndTheOnesRequestedLater() {
        World w = new World(6);
        CompletableFuture<CloseReport> first = new CompletableFuture<>();
        escalatedClose(w, EscalationPolicy.LEAK, 100 * MS, true, first);
        int before = w.journal.size();
        // A close requested after escalateAll escalates at once too.
        Child late = new Child(w, "h", 0, -1, 0, 0, -1, false, false);
        Target t = new Target(w, CloseSettings.builder().window(Duration.ofSeconds(60)).build(), List.of(late));
        CompletableFuture<CloseReport> second = new CompletableFuture<>();
        long start = w.now;
        w.at(w.now, () -> w.machine.closeRequested(t, 12, second));
        w.run(second, w.now + 600_000 * MS);
        assertTrue(w.now - start < 2_000 * MS, "the later close ended " + (w.now - start) / MS + " ms after its request");
        List<JournalEvent> j = new ArrayList<>(w.journal.subList(before, w.journal.size()));
        assertTrue(j.stream().anyMatch(e -> e.type() == dev.vigil.journal.EventType.ESCALATE_NOW_REQUESTED), j.toString());
        CloseDecisionAudit audit = new CloseDecisionAudit((CloseStarted) j.get(0));
        j.forEach(audit::accept);
        assertEquals(List.of(), audit.differences());
    }

    @Test
    void theDecisionAuditFlagsAnEscalateNowSpendWithoutItsRequest() {
        World w = new World(7);
        CompletableFuture<CloseReport> result = new CompletableFuture<>();
        List<JournalEvent> j = new ArrayList<>(escalatedClose(w, EscalationPolicy.LEAK, 500 * MS, false, result));
        // Tamper: the caller's request removed, the spend left claiming it.
        j.removeIf(e -> e.type() == dev.vigil.journal.EventType.ESCALATE_NOW_REQUESTED);
        CloseDecisionAudit audit = new CloseDecisionAudit((CloseStarted) j.get(0));
        j.forEach(audit::accept);
        assertTrue(audit.differences().stream().anyMatch(d -> d.contains("no EscalateNowRequested")), audit.differences().toString());
    }
}
