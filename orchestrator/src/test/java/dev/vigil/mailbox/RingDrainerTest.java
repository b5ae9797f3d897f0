package dev.vigil.mailbox;

import static dev.vigil.mailbox.MailboxState.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    /** What the drainer journaled, each packed transition as the MailboxTransition it stands for. */
    final List<JournalEvent> journal = new ArrayList<>();
    /** What the drainer journaled, as it was handed over. */
    final List<JournalEvent> written = new ArrayList<>();

    private void journal(JournalEvent e) {
        written.add(e);
        journal.addAll(unpacked(e));
    }

    /** A batch's transitions, any other event itself. */
    static List<? extends JournalEvent> unpacked(JournalEvent e) {
        return e instanceof MailboxTransitionBatch b ? b.transitions() : List.of(e);
    }

    /** A drainer that journals into this test's lists, with {@code handle} registered (flow control on). */
    private RingDrainer registered(MailboxHandle handle) {
        RingDrainer drainer = new RingDrainer(this::journal);
        drainer.register(handle);
        return drainer;
    }

    /** The parent's {@code n}-th transition of a TASK_READY / IDLE back and forth (odd n: TASK_READY); its new word. */
    private static long parentTurn(MappedMailbox mailbox, long word, long n) {
        return mailbox.casTransition(word, n % 2 == 1 ? TASK_READY : IDLE, WriterRole.PARENT, 1);
    }

    @BeforeEach
    void map() throws Exception {
        file = MailboxFiles.mapSlots(dir.resolve("slots"), 4);
    }

    @Test
    void everyTransitionIsJournaledOnceInSeqOrderWithItsWriterAndTime() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 0, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = new RingDrainer(this::journal);
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

    /**
     * One pass journals one MailboxTransitionBatch per mailbox (at most MAX_TRANSITIONS each), and a gap it declares lost
     * ends the batch before it: the journal keeps the records' order, overruns included.
     */
    @Test
    void aPassIsOneBatchOfAtMostItsBoundAndAnOverrunComesBetweenTheBatchesAroundIt() {
        int capacity = 2 * MailboxTransitionBatch.MAX_TRANSITIONS;
        MappedMailbox big = MappedMailbox.over(file.slice(0, MailboxDescriptor.mailboxLength(capacity)), 0, capacity);
        big.format(ProtocolMode.STICKY, PID, 1, Duration.ofSeconds(1).toNanos());
        MailboxHandle handle = MailboxHandle.over(new MailboxId("test", "big", 0), dir, big);
        RingDrainer drainer = new RingDrainer(this::journal, Duration.ofHours(1));
        long word = big.stateAcquire();
        long firstAt = System.nanoTime();
        for (int i = 0; i < capacity; i++) {
            word = parentTurn(big, word, i + 1);
        }
        assertEquals(capacity, drainer.drain(handle, 7));
        assertEquals(2, written.size(), "two batches of the bound each: " + written);
        for (JournalEvent e : written) {
            MailboxTransitionBatch b = (MailboxTransitionBatch) e;
            assertEquals(MailboxTransitionBatch.MAX_TRANSITIONS, b.size());
            assertEquals(WriterRole.CODE_NAMES, b.writerNames());
            assertEquals("NONE PARENT CHILD CLOSER", b.writerNames());
            assertEquals(7, b.closeId());
            assertEquals(b.transitions().get(0).timeNanos(), b.timeNanos(), "a batch's time is its first transition's");
        }
        assertTrue(written.get(0).timeNanos() >= firstAt);
        assertEquals(capacity, journal.size());
        for (int i = 0; i < capacity; i++) {
            assertEquals(i + 1, ((MailboxTransition) journal.get(i)).seq());
        }

        written.clear();
        journal.clear();
        long seq = capacity;
        big.recordTransition(++seq, 10, IDLE, TASK_READY, WriterRole.PARENT, 1);
        big.recordTransition(++seq, 20, TASK_READY, TASK_DONE, WriterRole.CHILD, PID);
        seq++; // its writer died between its CAS and its record
        big.recordTransition(++seq, 40, TASK_READY, TASK_DONE, WriterRole.CHILD, PID);
        assertEquals(4, drainer.drainFinal(handle, 0), "two records, the gap declared lost, the record after it: one pass");
        assertEquals(3, written.size(), written::toString);
        assertEquals(List.of(capacity + 1L, capacity + 2L), ((MailboxTransitionBatch) written.get(0)).transitions().stream()
                .map(MailboxTransition::seq).toList());
        assertEquals(capacity + 3L, ((RingOverrun) written.get(1)).firstLostSeq());
        assertEquals(capacity + 4L, ((MailboxTransitionBatch) written.get(2)).transitions().get(0).seq());
    }

    /**
     * The command path's inline drain frees the ring at once but lets the records wait (packed) for the background pass,
     * so that the journal's appender wakes once for many batches; JOURNAL_EVERY waiting are journaled at once, and
     * drain / forget journal whatever waits: nothing the command path drained is dropped.
     */
    @Test
    void recordsTheCommandPathDrainedWaitForTheJournalBoundedAndAreNeverDropped() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 0, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = registered(handle);
        int half = mailbox.ringCapacity() / 2;
        long word = mailbox.stateAcquire();
        long made = 0;
        for (int round = 1; round <= RingDrainer.JOURNAL_EVERY / half; round++) {
            for (int i = 0; i < half; i++) {
                word = parentTurn(mailbox, word, ++made);
            }
            drainer.commandCompleted(handle);
            assertEquals(made, mailbox.ringConsumerPositionAcquire(), "the command path freed the ring's slots");
            if (made < RingDrainer.JOURNAL_EVERY) {
                assertEquals(List.of(), written, "drained records wait for the background pass");
            }
        }
        assertEquals(RingDrainer.JOURNAL_EVERY / MailboxTransitionBatch.MAX_TRANSITIONS, written.size(),
                "JOURNAL_EVERY waiting: journaled at once, as full batches back to back");
        for (int i = 0; i < half; i++) {
            word = parentTurn(mailbox, word, ++made);
        }
        drainer.commandCompleted(handle);
        word = parentTurn(mailbox, word, ++made); // not drained yet
        assertEquals(RingDrainer.JOURNAL_EVERY, journal.size());
        drainer.forget(handle); // as after a final drain: what waits is journaled, not dropped
        assertEquals(RingDrainer.JOURNAL_EVERY + half, journal.size());
        assertEquals(made - 1, ((MailboxTransition) journal.get(journal.size() - 1)).seq());
        for (int i = 0; i < journal.size(); i++) {
            assertEquals(i + 1, ((MailboxTransition) journal.get(i)).seq());
        }
    }

    @Test
    void aRingThatLappedBeforeItWasDrainedIsJournaledAsAnOverrunNamingTheGap() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 1, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        long word = mailbox.stateAcquire();
        int total = MailboxDescriptor.DEFAULT_RING_CAPACITY + 10;
        for (int i = 0; i < total; i++) {
            word = parentTurn(mailbox, word, i + 1);
        }
        new RingDrainer(this::journal).drain(handle, 0);
        RingOverrun overrun = (RingOverrun) journal.get(0);
        assertEquals(1, overrun.firstLostSeq());
        assertEquals(10, overrun.lastLostSeq());
        assertEquals(MailboxDescriptor.DEFAULT_RING_CAPACITY + 1, journal.size());
        assertEquals(11, ((MailboxTransition) journal.get(1)).seq());
        assertEquals(total, ((MailboxTransition) journal.get(journal.size() - 1)).seq());
    }

    /**
     * RING_HEAD forged far ahead (a child's stray or hostile store): one drain reads at most two rings and returns,
     * instead of walking to the forged head one ticket at a time under the cursor's lock; the records it could not
     * read are one overrun at the final drain, and the ring works on from the forged head.
     */
    @Test
    void aForgedRingHeadCostsAtMostTwoRingsOfReadsAndTheLostRecordIsAnOverrun() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 2, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        long word = mailbox.stateAcquire();
        word = mailbox.casTransition(word, TASK_READY, WriterRole.PARENT, 1);
        file.duplicate().order(java.nio.ByteOrder.nativeOrder())
                .putLong(2 * MailboxDescriptor.DEFAULT_MAILBOX_LENGTH + MailboxDescriptor.RING_HEAD_OFFSET, 1L << 62);
        word = mailbox.casTransition(word, IDLE, WriterRole.PARENT, 1);
        RingDrainer drainer = new RingDrainer(this::journal);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> drainer.drain(handle, 0), "walked to the forged head");
        mailbox.casTransition(word, TASK_READY, WriterRole.PARENT, 1);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> drainer.drainFinal(handle, 0));
        // seq 1's slot was reused by seq 2's ticket (2^62 is a multiple of the capacity): lost, and said so exactly
        RingOverrun overrun = (RingOverrun) journal.get(0);
        assertEquals(1, overrun.firstLostSeq());
        assertEquals(1, overrun.lastLostSeq());
        assertEquals(2, ((MailboxTransition) journal.get(1)).seq(), "the transitions after the forgery are journaled");
        assertEquals(3, ((MailboxTransition) journal.get(2)).seq());
        assertEquals(3, journal.size(), journal.toString());
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
        try (RingDrainer drainer = new RingDrainer(e -> events.addAll(unpacked(e)))) {
            drainer.register(handle);
            assertTrue(mailbox.ringFlowControlAcquire(), "registering turns flow control on");
            drainer.start(Duration.ofMillis(5), () -> 0L);
            long word = mailbox.stateAcquire();
            for (int i = 0; i < 20_000; i++) { // 2,500 ring lengths, as fast as one thread can CAS
                word = parentTurn(mailbox, word, i + 1);
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

    /** A writer waiting on a full ring is counted by the drain that frees it (writersHeld), whichever process it is in. */
    @Test
    void aDrainCountsTheWritersAFullRingHeldBack() throws Exception {
        MailboxHandle handle = smallRing(0, Duration.ofSeconds(10));
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = registered(handle);
        long word = mailbox.stateAcquire();
        for (int i = 0; i < 8; i++) { // the ring full, nobody draining
            word = parentTurn(mailbox, word, i + 1);
        }
        long full = word;
        Thread writer = new Thread(() -> mailbox.casTransition(full, TASK_READY, WriterRole.CHILD, PID));
        writer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (mailbox.ringHeadAcquire() < 9 && System.nanoTime() < deadline) {
            Thread.sleep(1); // the writer has claimed ticket 8, whose slot holds seq 1, undrained
        }
        Thread.sleep(20);
        assertTrue(writer.isAlive(), "the writer waits for the drain");
        assertEquals(new RingDrainer.Counts(1, 0, 0, 0, 0, 0, 0, 0), drainer.counts());
        assertEquals(8, drainer.drain(handle, 0));
        writer.join(TimeUnit.SECONDS.toMillis(5));
        assertFalse(writer.isAlive(), "the drain let it write");
        assertEquals(1, drainer.drain(handle, 0));
        assertEquals(new RingDrainer.Counts(1, 1, 0, 0, 0, 0, 0, 0), drainer.counts(), "one writer held, seen by the first drain only");
        drainer.close();
    }

    /**
     * The background pass hands its batches to the journal after it lets the cursor go; a drain on another thread meanwhile
     * (here: drain, as the close path calls it) copies the later records out of the ring but journals them only after the
     * pass's batches (journalOrder): the journal stays in seq order. The pass is held inside the sink until the other
     * drain has either finished (out of order: the broken variant) or is blocked waiting for its turn.
     */
    @Test
    void aDrainWhileTheBackgroundPassIsStillJournalingJournalsAfterIt() throws Exception {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 3, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        java.util.concurrent.CountDownLatch passInSink = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch letPassGo = new java.util.concurrent.CountDownLatch(1);
        List<Long> seqs = java.util.Collections.synchronizedList(new ArrayList<>());
        RingDrainer drainer = new RingDrainer(e -> {
            if (Thread.currentThread().getName().equals("vigil-ring-drainer") && passInSink.getCount() > 0) {
                passInSink.countDown();
                try {
                    assertTrue(letPassGo.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            unpacked(e).forEach(t -> seqs.add(((MailboxTransition) t).seq()));
        });
        drainer.register(handle);
        long word = mailbox.stateAcquire();
        for (int i = 0; i < 10; i++) {
            word = parentTurn(mailbox, word, i + 1);
        }
        drainer.start(Duration.ofMillis(5), () -> 0L);
        assertTrue(passInSink.await(10, TimeUnit.SECONDS), "the pass drained seqs 1-10 and is handing them to the sink");
        for (int i = 10; i < 20; i++) {
            word = parentTurn(mailbox, word, i + 1);
        }
        Thread other = new Thread(() -> drainer.drain(handle, 0));
        other.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (other.getState() != Thread.State.WAITING && other.getState() != Thread.State.TERMINATED && System.nanoTime() < deadline) {
            Thread.sleep(1); // until it journaled (broken order) or waits for the pass's batches
        }
        letPassGo.countDown();
        other.join(TimeUnit.SECONDS.toMillis(10));
        drainer.close();
        assertEquals(java.util.stream.LongStream.rangeClosed(1, 20).boxed().toList(), seqs, "in seq order, the pass's batch first");
    }

    /**
     * Right after the command path published a command (while the child works on it), it copies a piece of the ring out:
     * at least PIECE_MIN records, at most PIECE_MAX, never the PIECE_KEEP at the head (the ring line the child writes
     * next); the records wait for the background pass like an inline drain's, and none is lost or reordered.
     */
    @Test
    void aCommandIssuedCopiesAPieceOfTheRingOutWhileTheChildAnswers() {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 0, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = registered(handle);
        long word = mailbox.stateAcquire();
        long made = 0;
        while (made < RingDrainer.PIECE_MIN + RingDrainer.PIECE_KEEP - 1) {
            word = parentTurn(mailbox, word, ++made);
        }
        drainer.commandIssued(handle);
        assertEquals(0, mailbox.ringConsumerPositionAcquire(), "less than a piece: left in the ring");
        word = parentTurn(mailbox, word, ++made);
        drainer.commandIssued(handle);
        assertEquals(RingDrainer.PIECE_MIN, mailbox.ringConsumerPositionAcquire(), "a piece, the last records left");
        while (made < RingDrainer.PIECE_MIN + RingDrainer.PIECE_KEEP + 2 * RingDrainer.PIECE_MAX || MailboxDescriptor.state(word) != IDLE) {
            word = parentTurn(mailbox, word, ++made);
        }
        assertEquals(IDLE, MailboxDescriptor.state(word));
        handle.sendControl(1, 0); // the handle's hook: one more transition, then a piece of at most PIECE_MAX
        assertEquals(RingDrainer.PIECE_MIN + RingDrainer.PIECE_MAX, mailbox.ringConsumerPositionAcquire());
        assertEquals(List.of(), written, "copied records wait for the background pass");
        drainer.drain(handle, 0);
        assertEquals(made + 1, journal.size());
        for (int i = 0; i < journal.size(); i++) {
            assertEquals(i + 1, ((MailboxTransition) journal.get(i)).seq());
        }
        drainer.close();
    }

    @Test
    void aCommandCompletionWakesADrainerFromItsIdleParkAtOnceInsteadOfAfterTheIdleBound() throws Exception {
        MailboxHandle handle = MailboxFiles.formatted(dir, file, 2, ProtocolMode.STICKY);
        MappedMailbox mailbox = handle.mailbox();
        List<JournalEvent> events = java.util.Collections.synchronizedList(new ArrayList<>());
        try (RingDrainer drainer = new RingDrainer(e -> events.addAll(unpacked(e)))) {
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

    /**
     * A completion pokes its mailbox: while another ring keeps the background pass at its 5 ms cadence, the pass looks
     * at the completed mailbox next, though the mailbox itself had backed off to a look every IDLE_LOOK_MAX_NANOS. Without
     * the poke its records waited up to that back-off (160 ms; ~80 ms at the median of completions at random phases).
     */
    @Test
    void aCompletionOnABackedOffMailboxIsJournaledInTheNextPassNotAfterItsBackOff() throws Exception {
        MailboxHandle busyHandle = MailboxFiles.formatted(dir, file, 0, ProtocolMode.STICKY);
        MailboxHandle quietHandle = MailboxFiles.formatted(dir, file, 1, ProtocolMode.STICKY);
        MappedMailbox busy = busyHandle.mailbox();
        MappedMailbox quiet = quietHandle.mailbox();
        AtomicInteger quietJournaled = new AtomicInteger();
        long backOffMillis = TimeUnit.NANOSECONDS.toMillis(RingDrainer.IDLE_LOOK_MAX_NANOS);
        List<Long> waits = new ArrayList<>();
        java.util.Random phase = new java.util.Random(7);
        try (RingDrainer drainer = new RingDrainer(e -> unpacked(e).stream()
                .filter(t -> t instanceof MailboxTransition m && m.index() == 1).forEach(t -> quietJournaled.incrementAndGet()))) {
            drainer.register(busyHandle);
            drainer.register(quietHandle);
            drainer.start(Duration.ofSeconds(1), () -> 0L);
            long busyWord = busy.stateAcquire();
            long quietWord = quiet.stateAcquire();
            long made = 0;
            for (int trial = 0; trial < 7; trial++) {
                // the quiet mailbox backs off (5 + 10 + ... + 160 ms of empty looks), then its completion comes at a random
                // phase of its 160 ms back-off, while the busy ring gets a record every ~2 ms
                long quietFrom = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2 * backOffMillis + 50 + phase.nextInt((int) backOffMillis));
                while (System.nanoTime() < quietFrom) {
                    busyWord = parentTurn(busy, busyWord, ++made);
                    Thread.sleep(2);
                }
                int before = quietJournaled.get();
                quietWord = quiet.casTransition(quietWord, CONTROL_REQUEST, WriterRole.PARENT, 1);
                quietWord = quiet.casTransition(quietWord, CONTROL_DONE, WriterRole.CHILD, PID);
                quietWord = quiet.casTransition(quietWord, IDLE, WriterRole.PARENT, 1);
                long completed = System.nanoTime();
                drainer.commandCompleted(quietHandle); // what MailboxHandle's command path calls after it saw the completion
                while (quietJournaled.get() < before + 3 && System.nanoTime() - completed < TimeUnit.SECONDS.toNanos(2)) {
                    busyWord = parentTurn(busy, busyWord, ++made);
                    Thread.sleep(1);
                }
                assertEquals(before + 3, quietJournaled.get(), "trial " + trial + ": the completion's three transitions journaled");
                waits.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - completed));
            }
        }
        List<Long> sorted = new ArrayList<>(waits);
        sorted.sort(null);
        long median = sorted.get(sorted.size() / 2);
        assertTrue(median < backOffMillis / 4, "completions journaled in the next pass (median " + median + " ms of " + waits
                + "), not after the mailbox's " + backOffMillis + " ms back-off");
    }

    /**
     * While one ring is busy (the background pass every 5 ms), the idle mailboxes beside it are looked at seldom (each
     * empty look doubles its wait, up to IDLE_LOOK_MAX_NANOS), not in every pass: a start of thousands of children kept
     * the pass reading every mailbox 200 times a second.
     */
    @Test
    void idleMailboxesBesideABusyRingAreNotLookedAtInEveryPass() throws Exception {
        int idle = 64;
        MappedByteBuffer many = MailboxFiles.mapSlots(dir.resolve("many"), idle + 1);
        List<MailboxHandle> handles = new ArrayList<>();
        for (int i = 0; i <= idle; i++) {
            int offset = i * MailboxDescriptor.DEFAULT_MAILBOX_LENGTH;
            MappedMailbox m = MappedMailbox.over(many.slice(offset, MailboxDescriptor.mailboxLength(8)), offset, 8);
            m.format(ProtocolMode.STICKY, PID, 1, MailboxDescriptor.DEFAULT_RING_WAIT_NANOS);
            handles.add(MailboxHandle.over(new MailboxId("test", "many", i), dir, m));
        }
        MappedMailbox busy = handles.get(0).mailbox();
        AtomicInteger journaled = new AtomicInteger();
        try (RingDrainer drainer = new RingDrainer(e -> journaled.addAndGet(unpacked(e).size()))) {
            handles.forEach(drainer::register);
            drainer.start(Duration.ofSeconds(1), () -> 0L);
            long word = busy.stateAcquire();
            int written = 0;
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_000);
            while (System.nanoTime() < end) { // a record every ~2 ms: every pass finds some
                word = parentTurn(busy, word, ++written);
                Thread.sleep(2);
            }
            drainer.stop();
            RingDrainer.Counts counts = drainer.counts();
            assertTrue(counts.passes() >= 40, "the busy ring kept the pass at its 5 ms cadence: " + counts);
            double idleLooksEach = (double) (counts.passLooks() - counts.passes()) / idle;
            // back-offs 5, 10, ..., 160 ms: ~6 looks, then one every 160 ms (~6 more in a second)
            assertTrue(idleLooksEach <= 20, "each idle mailbox looked at " + idleLooksEach + " times in " + counts.passes() + " passes");
            handles.forEach(h -> drainer.drainFinal(h, 0));
            assertEquals(written, journaled.get(), "every record of the busy ring journaled");
        }
    }

    @Test
    void aWedgedDrainerMakesWritersLapAfterTheirBoundedWaitAndTheOverrunCountsExactlyTheLostRecords() {
        MailboxHandle handle = smallRing(1, Duration.ofMillis(30));
        MappedMailbox mailbox = handle.mailbox();
        RingDrainer drainer = registered(handle); // flow control on, position 0; then the drainer does nothing (wedged)
        long word = mailbox.stateAcquire();
        long start = System.nanoTime();
        for (int i = 0; i < 8 + 3; i++) {
            word = parentTurn(mailbox, word, i + 1);
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
        RingDrainer drainer = new RingDrainer(this::journal, Duration.ofHours(1));
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
        new RingDrainer(this::journal).drainFinal(handle, 0);
        List<MailboxTransition> transitions = journal.stream().map(e -> (MailboxTransition) e).toList();
        assertEquals(3, transitions.size(), transitions::toString);
        assertEquals(List.of(1L, 2L, 2L), transitions.stream().map(MailboxTransition::seq).toList());
        assertEquals("CLOSER", transitions.get(1).writer());
        assertEquals(SHUTDOWN, transitions.get(1).toState());
        assertEquals(CONTROL_REQUEST, transitions.get(2).fromState(), "second's from != first's to: the lost update");
        assertEquals(CONTROL_DONE, MailboxDescriptor.state(mailbox.stateAcquire()));
    }
}
