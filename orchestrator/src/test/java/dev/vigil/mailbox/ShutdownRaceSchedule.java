package dev.vigil.mailbox;

import static dev.vigil.mailbox.MailboxState.*;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;

/**
 * One randomized cycle of the lost-shutdown race, the same for in-process and real children: the parent runs
 * 0..3 control commands; the last one is left in flight while the closer publishes shutdown after a random
 * delay (or, at random, only after it completed); the parent then collects it if the child completed it.
 * The outcome says whether the child ended through shutdown or lost it.
 */
final class ShutdownRaceSchedule {
    /** How a cycle's child is observed and, if it lost its shutdown, stopped. */
    interface CycleChild {
        /** The exit status once it ended, else null. */
        Integer status();

        /** Stops a child that can no longer see its shutdown (in-process: abort flag; process: SIGKILL); returns its status. */
        int stopUnreachable();
    }

    enum Outcome { EXITED, LOST }

    static final Duration BOUND = Duration.ofSeconds(10);
    /**
     * How long a child may take to reach its loop: a JVM child's start took over 10 s at load 50 on 2 cores (a full
     * verify beside five helpers' builds and a 16-spinner bench); readiness is not what this test measures.
     */
    static final Duration READY_BOUND = Duration.ofSeconds(60);

    private ShutdownRaceSchedule() {
    }

    /** Runs one cycle against a child that is already serving {@code handle}; {@code maxDelayNanos} bounds the publish delay. */
    static Outcome run(MailboxHandle handle, CycleChild child, SplittableRandom random, long maxDelayNanos, IntSupplier opcodeArg) {
        if (handle.awaitInit(READY_BOUND) != InitOutcome.READY) {
            throw new AssertionError("child not ready: " + handle);
        }
        int commands = random.nextInt(4);
        for (int i = 1; i < commands; i++) {
            long argument = random.nextLong();
            CommandResult result = handle.control(opcodeArg.getAsInt(), argument, BOUND);
            if (result.value() != argument) {
                throw new AssertionError("wrong echo: argument=" + argument + " result=" + result);
            }
        }
        boolean inFlight = commands > 0;
        boolean publishDuringCommand = random.nextInt(4) != 0;
        if (inFlight) {
            handle.sendControl(opcodeArg.getAsInt(), 1);
            if (publishDuringCommand) {
                spin(random.nextLong(maxDelayNanos + 1));
                handle.publishShutdown(1);
            }
            collect(handle, child);
        }
        if (!inFlight || !publishDuringCommand) {
            handle.publishShutdown(1);
        }
        return awaitEnd(handle, child);
    }

    /**
     * Waits until the child answered, the request disappeared (legacy: SHUTDOWN stored over it) or the child
     * ended (it checks shutdown before it looks at a request, so a request placed before it looked is never
     * served), then collects an answer if there is one.
     */
    private static void collect(MailboxHandle handle, CycleChild child) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        IdleBackoff backoff = new IdleBackoff();
        for (;;) {
            int state = handle.state();
            if (state == CONTROL_DONE) {
                handle.awaitControl(BOUND);
                return;
            }
            if (state != CONTROL_REQUEST || child.status() != null) {
                return; // legacy: the closer's SHUTDOWN replaced the request; the command is abandoned
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("child never answered: " + handle);
            }
            backoff.idle();
        }
    }

    private static Outcome awaitEnd(MailboxHandle handle, CycleChild child) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        IdleBackoff backoff = new IdleBackoff(20_000, 2_000_000, 200_000);
        for (;;) {
            Integer status = child.status();
            if (status != null) {
                if (status != 0) {
                    throw new AssertionError("child ended with status=" + status + " " + handle);
                }
                return Outcome.EXITED;
            }
            int state = handle.state();
            boolean unreachable = handle.mode() == ProtocolMode.LEGACY && state != SHUTDOWN && state != CONTROL_REQUEST && state != TASK_READY;
            if (unreachable || System.nanoTime() > deadline) {
                // legacy: nobody writes the state word any more and it does not say SHUTDOWN: the child cannot
                // see it. (A child already past its check exits 0 anyway; stopUnreachable() tells which happened.)
                return child.stopUnreachable() == 0 ? Outcome.EXITED : Outcome.LOST;
            }
            backoff.idle();
        }
    }

    /**
     * Checks the journal of one mailbox: every ring record journaled once (events == tickets), sticky: seqs
     * 1..n each once, each {@code from} equal to the previous {@code to}; legacy: no seq missing.
     * {@code childKilled}: a SIGKILLed child may die between its state-word store and its ring record; then
     * (only then) one RingOverrun naming that single seq is allowed. Returns a problem, or null.
     */
    static String checkJournal(MailboxHandle handle, List<JournalEvent> events, boolean childKilled) {
        long tickets = handle.mailbox().ringHeadAcquire();
        int transitions = 0;
        int overruns = 0;
        long expectedSeq = 1;
        int lastTo = IDLE;
        for (JournalEvent event : events) {
            if (event instanceof RingOverrun overrun) {
                if (!childKilled || ++overruns > 1 || overrun.firstLostSeq() != overrun.lastLostSeq()) {
                    return "unexpected overrun " + overrun + " killed=" + childKilled + " events=" + events;
                }
                expectedSeq = Math.max(expectedSeq, overrun.lastLostSeq() + 1);
                lastTo = -1; // unknown after a lost record
                continue;
            }
            for (MailboxTransition t : MailboxTransitionBatch.expand(event)) {
                transitions++;
                if (handle.mode() == ProtocolMode.STICKY) {
                    if (t.seq() != expectedSeq || (lastTo >= 0 && t.fromState() != lastTo)) {
                        return "broken chain at seq=" + t.seq() + " expectedSeq=" + expectedSeq + " from=" + name(t.fromState())
                                + " previousTo=" + (lastTo < 0 ? "?" : name(lastTo)) + " " + events;
                    }
                } else if (t.seq() > expectedSeq) {
                    return "legacy seq gap at seq=" + t.seq() + " expected<=" + expectedSeq + " " + events;
                }
                expectedSeq = Math.max(expectedSeq, t.seq() + 1);
                lastTo = t.toState();
            }
        }
        if (transitions != tickets - overruns && transitions != tickets) {
            return "journaled=" + transitions + " ringTickets=" + tickets + " overruns=" + overruns + " " + events;
        }
        return null;
    }

    static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }
}
