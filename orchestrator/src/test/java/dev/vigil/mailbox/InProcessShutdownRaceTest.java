package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.Cancellation;
import dev.vigil.child.ChildContext;
import dev.vigil.child.ChildExitCodes;
import dev.vigil.child.ChildHandler;
import dev.vigil.child.ChildRuntime;
import dev.vigil.journal.JournalEvent;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 100,000 randomized cycles in sticky mode (20,000 in legacy mode) with the child's serve loop on a thread over a mapped file:
 * shutdown published at random moments while control commands are in flight. Sticky loses nothing; legacy,
 * on the same schedule, loses some (the test prints how many and asserts > 0, so it is known to bite).
 * Every cycle's transitions are drained and checked: all journaled once, unbroken chains.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class InProcessShutdownRaceTest {
    /** Sticky carries the claim "0 lost", so it gets the 100,000; legacy only has to show that it loses some. */
    static final int STICKY_CYCLES = Integer.getInteger("vigil.race.stickyCycles", 100_000);
    static final int LEGACY_CYCLES = Integer.getInteger("vigil.race.legacyCycles", 20_000);
    static final long MAX_HANDLER_NANOS = 20_000;
    static final long MAX_PUBLISH_DELAY_NANOS = 20_000;

    /**
     * Legacy's losses need the two threads to run at once; on a loaded machine they may interleave only at preemption
     * and lose none in the first 20,000 cycles. Legacy then runs on, bounded, until it has lost one.
     */
    static final int LEGACY_MAX_CYCLES = 400_000;
    static final long LEGACY_MAX_NANOS = TimeUnit.SECONDS.toNanos(90);

    @TempDir
    Path dir;

    private static boolean legacyHasNotBitten(ProtocolMode mode, int lost, int cycle, long started) {
        return mode == ProtocolMode.LEGACY && lost == 0 && cycle < LEGACY_MAX_CYCLES
                && System.nanoTime() - started < LEGACY_MAX_NANOS;
    }

    @ParameterizedTest
    @EnumSource(ProtocolMode.class)
    void shutdownsPublishedDuringControlCommands(ProtocolMode mode) throws Exception {
        MappedByteBuffer file = MailboxFiles.mapSlots(dir.resolve("slots"), 1);
        ChildThread child = new ChildThread(mode);
        child.start();
        SplittableRandom random = new SplittableRandom(mode.ordinal() * 7919L + 17);
        List<JournalEvent> events = new ArrayList<>();
        int lost = 0;
        int badJournal = 0;
        String firstJournalProblem = null;
        long started = System.nanoTime();
        int cycle = 0;
        int cycles = mode == ProtocolMode.STICKY ? STICKY_CYCLES : LEGACY_CYCLES;
        try {
            for (; cycle < cycles || legacyHasNotBitten(mode, lost, cycle, started); cycle++) {
                MappedMailbox mailbox = MailboxFiles.slot(file, 0);
                mailbox.format(mode, 1, cycle + 1);
                MailboxHandle handle = MailboxHandle.over(new MailboxId("race", mode.name(), cycle), dir, mailbox);
                child.serve(mailbox);
                ShutdownRaceSchedule.Outcome outcome = ShutdownRaceSchedule.run(handle, child, random, MAX_PUBLISH_DELAY_NANOS, () -> 1);
                if (outcome == ShutdownRaceSchedule.Outcome.LOST) {
                    lost++;
                } else if (mode == ProtocolMode.STICKY && handle.ackNanos() == 0) {
                    fail("sticky child exited without an ack: cycle=" + cycle);
                }
                events.clear();
                new RingDrainer(events::add).drainFinal(handle, 0);
                String problem = ShutdownRaceSchedule.checkJournal(handle, events, false);
                if (problem != null) {
                    badJournal++;
                    firstJournalProblem = firstJournalProblem == null ? "cycle=" + cycle + " " + problem : firstJournalProblem;
                }
            }
        } finally {
            child.interrupt();
        }
        System.out.printf("in-process race: mode=%s cycles=%d lostShutdowns=%d seconds=%.1f%n", mode, cycle, lost,
                (System.nanoTime() - started) / 1e9);
        assertNull(firstJournalProblem, "journal problems=" + badJournal);
        if (mode == ProtocolMode.STICKY) {
            assertEquals(0, lost, "sticky lost shutdowns");
        } else {
            assertTrue(lost > 0, "legacy must lose some shutdowns on this schedule (else the check does not bite): cycles=" + cycle);
        }
    }

    @Test
    void theChildThreadHarnessReportsAbortAsALoss() {
        // the stopUnreachable() path used for legacy losses: a child that never sees shutdown returns ABORTED
        ChildThread child = new ChildThread(ProtocolMode.LEGACY);
        child.start();
        try {
            MappedByteBuffer file = MailboxFiles.mapSlots(dir.resolve("slots"), 1);
            MappedMailbox mailbox = MailboxFiles.slot(file, 0);
            mailbox.format(ProtocolMode.LEGACY, 1, 1);
            child.serve(mailbox);
            assertEquals(ChildExitCodes.ABORTED, child.stopUnreachable());
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        } finally {
            child.interrupt();
        }
    }

    /** A long-lived thread that runs one ChildRuntime per cycle (creating a thread per cycle would dominate the run). */
    static final class ChildThread extends Thread implements ShutdownRaceSchedule.CycleChild {
        private final ProtocolMode mode;
        private final AtomicReference<MappedMailbox> next = new AtomicReference<>();
        private final AtomicInteger status = new AtomicInteger(Integer.MIN_VALUE);
        private volatile boolean abort;

        ChildThread(ProtocolMode mode) {
            super("in-process-child-" + mode);
            this.mode = mode;
            setDaemon(true);
        }

        void serve(MappedMailbox mailbox) {
            abort = false;
            status.set(Integer.MIN_VALUE);
            next.set(mailbox);
        }

        @Override
        public Integer status() {
            int s = status.get();
            return s == Integer.MIN_VALUE ? null : s;
        }

        @Override
        public int stopUnreachable() {
            abort = true;
            IdleBackoff backoff = new IdleBackoff();
            while (status() == null) {
                backoff.idle();
            }
            return status();
        }

        @Override
        public void run() {
            IdleBackoff backoff = new IdleBackoff(10_000, Long.MAX_VALUE / 4, 1_000_000); // never parks between cycles
            while (!isInterrupted()) {
                MappedMailbox mailbox = next.getAndSet(null);
                if (mailbox == null) {
                    backoff.idle();
                    continue;
                }
                backoff.reset();
                ChildRuntime runtime = new ChildRuntime(mailbox, mode, 777, ChildRuntime.Options.inProcess(() -> abort));
                status.set(runtime.run(BusyEcho::new, new ChildContext(null, mailbox, 777)));
            }
        }
    }

    /** Echoes after a random busy handler time (0..20 us), long enough for a publication to land inside. */
    static final class BusyEcho implements ChildHandler {
        @Override
        public long onControl(int opcode, long argument, Cancellation cancellation) {
            ShutdownRaceSchedule.spin(ThreadLocalRandom.current().nextLong(MAX_HANDLER_NANOS + 1));
            return argument;
        }
    }
}
