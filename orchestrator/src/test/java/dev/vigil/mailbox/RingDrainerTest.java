package dev.vigil.mailbox;

import static dev.vigil.mailbox.MailboxState.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.RingOverrun;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RingDrainerTest {
    static final int PID = 4242;

    @TempDir
    Path dir;
    MappedByteBuffer file;
    final List<JournalEvent> journal = new ArrayList<>();

    @BeforeEach
    void map() throws Exception {
        file = MailboxFiles.mapSlots(dir.resolve("slots"), 4);
    }

    @Test
    void everyTransitionIsJournaledOnceInSeqOrderWithItsWriterAndTime() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 0, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = new RingDrainer(journal::add);
        long word = mailbox.stateAcquire();
        long before = System.nanoTime();
        word = mailbox.casTransition(word, INIT_READY, WriterRole.CHILD, PID);
        assertEquals(MappedMailbox.TRANSITION_FAILED, mailbox.casTransition(0, CONTROL_REQUEST, WriterRole.PARENT, 1), "stale CAS fails");
        word = mailbox.casTransition(word, CONTROL_REQUEST, WriterRole.PARENT, 1);
        assertEquals(2, drainer.drain(handle, 9));
        word = mailbox.casTransition(word, CONTROL_DONE, WriterRole.CHILD, PID);
        mailbox.casTransition(word, IDLE, WriterRole.PARENT, 1);
        assertEquals(2, drainer.drain(handle, 9));
        assertEquals(0, drainer.drain(handle, 9));

        List<MailboxTransition> transitions = journal.stream().map(e -> (MailboxTransition) e).toList();
        assertEquals(List.of(1L, 2L, 3L, 4L), transitions.stream().map(MailboxTransition::seq).toList());
        assertEquals(List.of("CHILD", "PARENT", "CHILD", "PARENT"), transitions.stream().map(MailboxTransition::writer).toList());
        for (int i = 1; i < transitions.size(); i++) {
            assertEquals(transitions.get(i - 1).toState(), transitions.get(i).fromState());
            assertTrue(transitions.get(i).timeNanos() >= transitions.get(i - 1).timeNanos());
        }
        MailboxTransition first = transitions.get(0);
        assertEquals(IDLE, first.fromState());
        assertEquals(PID, first.writerPid());
        assertEquals(9, first.closeId());
        assertEquals("test", first.poolId());
        assertEquals(ProcessHandle.current().pid(), first.orchestratorPid());
        assertTrue(first.timeNanos() >= before && first.timeNanos() <= System.nanoTime());
    }

    @Test
    void aRingThatLappedBeforeItWasDrainedIsJournaledAsAnOverrunNamingTheGap() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 1, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        long word = mailbox.stateAcquire();
        int total = MailboxDescriptor.DEFAULT_RING_CAPACITY + 10;
        for (int i = 0; i < total; i++) {
            word = mailbox.casTransition(word, i % 2 == 0 ? TASK_READY : IDLE, WriterRole.PARENT, 1);
        }
        new RingDrainer(journal::add).drain(handle, 0);
        RingOverrun overrun = (RingOverrun) journal.get(0);
        assertEquals(1, overrun.firstLostSeq());
        assertEquals(10, overrun.lastLostSeq());
        assertEquals(MailboxDescriptor.DEFAULT_RING_CAPACITY + 1, journal.size());
        assertEquals(11, ((MailboxTransition) journal.get(1)).seq());
        assertEquals(total, ((MailboxTransition) journal.get(journal.size() - 1)).seq());
    }

    /** A small ring (8 records) with the given writer wait over slot {@code index}, formatted and handed to a handle. */
    private MailboxHandle smallRing(int index, Duration writerWait) {
        int offset = index * MailboxDescriptor.DEFAULT_MAILBOX_LENGTH;
        MappedMailbox mailbox = MappedMailbox.over(file.slice(offset, MailboxDescriptor.mailboxLength(8)), offset, 8);
        mailbox.format(ProtocolMode.STICKY, PID, 1, writerWait.toNanos());
        return MailboxHandle.over(new MailboxId("test", "small", index), dir, mailbox);
    }

    @Test
    void withALiveDrainerAWriterFasterThanItWaitsInsteadOfLappingAndNothingIsLost() throws Exception {
        // the default bound (1 s): a live drainer thread on a loaded machine can be descheduled for tens of ms
        MailboxHandle handle = smallRing(0, Duration.ofNanos(MailboxDescriptor.DEFAULT_RING_WAIT_NANOS));
        MappedMailbox mailbox = handle.mailbox();
        List<JournalEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
        try (RingDrainer drainer = new RingDrainer(events::add)) {
            drainer.register(handle);
            assertTrue(mailbox.ringFlowControlAcquire(), "registering turns flow control on");
            drainer.start(Duration.ofMillis(5), () -> 0L);
            long word = mailbox.stateAcquire();
            for (int i = 0; i < 20_000; i++) { // 2,500 ring lengths, as fast as one thread can CAS
                word = mailbox.casTransition(word, i % 2 == 0 ? TASK_READY : IDLE, WriterRole.PARENT, 1);
            }
            drainer.stop();
            drainer.drainFinal(handle, 0);
        }
        assertFalse(mailbox.ringFlowControlAcquire(), "closing the drainer turns flow control off");
        assertEquals(20_000, events.size());
        for (int i = 0; i < events.size(); i++) {
            assertEquals(i + 1, ((MailboxTransition) events.get(i)).seq(), "no overrun, every seq in order");
        }
    }

    @Test
    void aCommandCompletionWakesADrainerFromItsIdleParkAtOnceInsteadOfAfterTheIdleBound() throws Exception {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 2, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        List<JournalEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
        try (RingDrainer drainer = new RingDrainer(events::add)) {
            drainer.register(handle);
            drainer.start(Duration.ofSeconds(20), () -> 0L);
            Thread.sleep(2_500); // idle passes double the park: it is now parked for seconds
            long word = mailbox.stateAcquire();
            word = mailbox.casTransition(word, CONTROL_REQUEST, WriterRole.PARENT, 1);
            word = mailbox.casTransition(word, CONTROL_DONE, WriterRole.CHILD, PID);
            mailbox.casTransition(word, IDLE, WriterRole.PARENT, 1);
            long completed = System.nanoTime();
            drainer.commandCompleted(handle); // what MailboxHandle's command path calls after it saw the completion
            while (events.size() < 3 && System.nanoTime() - completed < TimeUnit.SECONDS.toNanos(10)) {
                Thread.sleep(1);
            }
            long waited = System.nanoTime() - completed;
            assertEquals(3, events.size(), "the three transitions journaled");
            assertTrue(waited < TimeUnit.MILLISECONDS.toNanos(500), "journaled within 0.5 s, not at the end of a multi-second park: "
                    + TimeUnit.NANOSECONDS.toMillis(waited) + " ms");
        }
    }

    @Test
    void aWedgedDrainerMakesWritersLapAfterTheirBoundedWaitAndTheOverrunCountsExactlyTheLostRecords() {
        MailboxHandle handle = smallRing(1, Duration.ofMillis(30));
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = new RingDrainer(journal::add);
        drainer.register(handle); // flow control on, position 0; then the drainer does nothing (wedged)
        long word = mailbox.stateAcquire();
        long start = System.nanoTime();
        for (int i = 0; i < 8 + 3; i++) {
            word = mailbox.casTransition(word, i % 2 == 0 ? TASK_READY : IDLE, WriterRole.PARENT, 1);
        }
        long waited = System.nanoTime() - start;
        assertTrue(waited >= 3 * Duration.ofMillis(30).toNanos(), "each of the 3 lapping writes waited the bound first: " + waited);
        assertTrue(waited < Duration.ofSeconds(5).toNanos(), "and no longer than bounded: " + waited);
        drainer.drain(handle, 0);
        RingOverrun overrun = (RingOverrun) journal.get(0);
        assertEquals(1, overrun.firstLostSeq());
        assertEquals(3, overrun.lastLostSeq(), "exactly the 3 overwritten records");
        assertEquals(1 + 8, journal.size());
        for (int i = 1; i < journal.size(); i++) {
            assertEquals(3 + i, ((MailboxTransition) journal.get(i)).seq());
        }
    }

    @Test
    void aClaimedButUnpublishedRecordHoldsLaterSeqsBackUntilItIsPublishedOrDeclaredLost() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 2, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = new RingDrainer(journal::add, Duration.ofHours(1));
        // seq 1 recorded; seq 2 "won its CAS" but its writer has not recorded yet; seq 3 recorded
        mailbox.recordTransition(1, 10, IDLE, INIT_READY, WriterRole.CHILD, PID);
        mailbox.recordTransition(3, 30, CONTROL_REQUEST, CONTROL_DONE, WriterRole.CHILD, PID);
        assertEquals(1, drainer.drain(handle, 0), "seq 3 waits for seq 2");
        mailbox.recordTransition(2, 20, INIT_READY, CONTROL_REQUEST, WriterRole.PARENT, 1);
        assertEquals(2, drainer.drain(handle, 0));
        assertEquals(List.of(1L, 2L, 3L), journal.stream().map(e -> ((MailboxTransition) e).seq()).toList());

        // seq 4's writer died after its CAS: the final drain names it
        mailbox.recordTransition(5, 50, CONTROL_REQUEST, CONTROL_DONE, WriterRole.CHILD, PID);
        assertEquals(0, drainer.drain(handle, 0));
        assertEquals(2, drainer.drainFinal(handle, 0));
        RingOverrun lost = (RingOverrun) journal.get(3);
        assertEquals(4, lost.firstLostSeq());
        assertEquals(4, lost.lastLostSeq());
        assertEquals(5, ((MailboxTransition) journal.get(4)).seq());
    }

    @Test
    void legacyLostUpdatesShowAsTwoRecordsWithOneSeq() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 3, ProtocolMode.LEGACY);
        MappedMailbox mailbox = handle.mailbox();
        long request = mailbox.storeTransition(mailbox.stateAcquire(), CONTROL_REQUEST, WriterRole.PARENT, 1);
        ShutdownPublication published = handle.publishShutdown(1);
        assertTrue(published.won());
        assertEquals(request, published.observed());
        mailbox.storeTransition(request, CONTROL_DONE, WriterRole.CHILD, PID); // computed from the word before SHUTDOWN
        new RingDrainer(journal::add).drainFinal(handle, 0);
        List<MailboxTransition> transitions = journal.stream().map(e -> (MailboxTransition) e).toList();
        assertEquals(3, transitions.size(), transitions::toString);
        assertEquals(List.of(1L, 2L, 2L), transitions.stream().map(MailboxTransition::seq).toList());
        assertEquals("CLOSER", transitions.get(1).writer());
        assertEquals(SHUTDOWN, transitions.get(1).toState());
        assertEquals(CONTROL_REQUEST, transitions.get(2).fromState(), "second's from != first's to: the lost update");
        assertEquals(CONTROL_DONE, MailboxDescriptor.state(mailbox.stateAcquire()));
    }
}
