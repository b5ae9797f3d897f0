package dev.vigil.mailbox;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The words of one mailbox over a mapped region of the map file, through {@link VarHandle} views:
 * JDK classes only, so the Java child runtime can use it without Chronicle on its class path. The parent
 * uses the same class over its own mapping of the same file (MAP_SHARED: both see one set of pages), so
 * the protocol's memory accesses are written once for both sides.
 *
 * <p>Ordering vocabulary: {@code *Acquire} reads pair with {@code *Release} stores; {@code cas*} and
 * {@code getAndAdd} are full (volatile) read-modify-writes. Plain accessors are used only for fields that
 * a release store or CAS publishes afterwards (command area, result area, ring record bodies).
 */
public final class MappedMailbox {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
    private static final VarHandle INTS = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    /**
     * Initialized with this class, never first in {@link #readRing}: the JVM raises the memory fault of a read of a
     * cut map at a later instruction, and raised inside a class's static set-up it fails that class for the rest of
     * the JVM's life (every later close failed 'Could not initialize class TransitionRecord': seen after a map cut
     * in the middle of a close whose engine thread survived the fault).
     */
    private static final TransitionRecord PENDING = TransitionRecord.PENDING;

    /** Returned by {@link #casTransition} when the state word was not the expected one. */
    public static final long TRANSITION_FAILED = -1L;

    private final ByteBuffer buffer;
    private final long fileOffset;
    private final int ringCapacity;
    private final int mailboxLength;
    /** Parent process only: told when one of its own writers finds the ring full (wakes the drainer). */
    private volatile Runnable ringFullListener;
    /**
     * The consumer position last read + the ring's capacity: a ticket below it has room whatever the drainer did
     * since (its position only grows, so a stale limit is lower, never wrong), so line 8, which the drainer writes
     * every piece, is read only at the limit (Aeron's publisher limit). Volatile: a long that never tears; writers
     * of several threads may store an older limit over a newer one, which is only lower.
     */
    private volatile long ringLimit;

    private MappedMailbox(ByteBuffer buffer, long fileOffset, int ringCapacity) {
        this.mailboxLength = MailboxDescriptor.mailboxLength(ringCapacity);
        if (buffer.capacity() < mailboxLength || !buffer.isDirect()) {
            throw new MailboxException("mailbox buffer too small or not direct: capacity=" + buffer.capacity() + " length=" + mailboxLength);
        }
        this.buffer = buffer.order(ByteOrder.nativeOrder());
        this.fileOffset = fileOffset;
        this.ringCapacity = ringCapacity;
    }

    /**
     * Maps the existing mailbox at {@code fileOffset} of {@code mapFile} read-write (MAP_SHARED); its ring
     * capacity (and so its length) comes from its identity line, which must hold a mailbox of this layout.
     */
    public static MappedMailbox map(Path mapFile, long fileOffset) {
        return map(mapFile, fileOffset, 0);
    }

    /**
     * Maps a mailbox of {@code ringCapacity} records at {@code fileOffset} (to be formatted by the parent); 0 reads
     * the capacity from the identity line already there.
     */
    public static MappedMailbox map(Path mapFile, long fileOffset, int ringCapacity) {
        checkMailboxOffset(fileOffset);
        try (FileChannel channel = FileChannel.open(mapFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            int capacity = ringCapacity;
            if (capacity == 0) {
                ByteBuffer header = ByteBuffer.allocate(CACHE_LINE_LENGTH).order(ByteOrder.nativeOrder());
                while (header.hasRemaining() && channel.read(header, fileOffset + header.position()) > 0) {
                    // read the identity line
                }
                MailboxDescriptor.checkHeader(header.getLong(MAGIC_OFFSET), header.getInt(LAYOUT_VERSION_OFFSET),
                        header.getInt(MAILBOX_LENGTH_OFFSET), header.getInt(RING_CAPACITY_OFFSET));
                capacity = header.getInt(RING_CAPACITY_OFFSET);
            }
            int length = MailboxDescriptor.mailboxLength(capacity);
            if (fileOffset + length > size) {
                throw new MailboxException("mailbox beyond end of map file: file=" + mapFile + " offset=" + fileOffset + " length=" + length
                        + " fileSize=" + size);
            }
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, fileOffset, length);
            return new MappedMailbox(mapped, fileOffset, capacity);
        } catch (IOException e) {
            throw new MailboxException("cannot map mailbox: file=" + mapFile + " offset=" + fileOffset + " error=" + e.getMessage(), e);
        }
    }

    /** A mailbox with the default ring over an existing direct buffer whose position 0 is the mailbox start (tests, in-process children). */
    public static MappedMailbox over(ByteBuffer mailboxRegion, long fileOffset) {
        return new MappedMailbox(mailboxRegion, fileOffset, DEFAULT_RING_CAPACITY);
    }

    /** {@link #over(ByteBuffer, long)} with a ring of {@code ringCapacity} records. */
    public static MappedMailbox over(ByteBuffer mailboxRegion, long fileOffset, int ringCapacity) {
        return new MappedMailbox(mailboxRegion, fileOffset, ringCapacity);
    }

    public int ringCapacity() {
        return ringCapacity;
    }

    public int mailboxLength() {
        return mailboxLength;
    }

    public long fileOffset() {
        return fileOffset;
    }

    // ---------------------------------------------------------------- identity

    /**
     * Writes a fresh mailbox: everything zeroed, identity line filled, state word 0 (IDLE, no writer, seq 0),
     * magic last with a release store so a child that reads the magic sees the rest.
     */
    public void format(ProtocolMode mode, int parentPid, long spawnEpoch) {
        format(mode, parentPid, spawnEpoch, DEFAULT_RING_WAIT_NANOS);
    }

    /** {@link #format(ProtocolMode, int, long)} with the writers' ring wait bound (see {@link MailboxDescriptor#RING_WAIT_NANOS_OFFSET}). */
    public void format(ProtocolMode mode, int parentPid, long spawnEpoch, long ringWaitNanos) {
        LONGS.setVolatile(buffer, MAGIC_OFFSET, 0L);
        for (int i = Long.BYTES; i < mailboxLength; i += Long.BYTES) {
            LONGS.set(buffer, i, 0L);
        }
        INTS.set(buffer, LAYOUT_VERSION_OFFSET, LAYOUT_VERSION);
        INTS.set(buffer, PROTOCOL_MODE_OFFSET, mode.code());
        INTS.set(buffer, MAILBOX_LENGTH_OFFSET, mailboxLength);
        INTS.set(buffer, RING_CAPACITY_OFFSET, ringCapacity);
        LONGS.set(buffer, SPAWN_EPOCH_OFFSET, spawnEpoch);
        INTS.set(buffer, PARENT_PID_OFFSET, parentPid);
        LONGS.set(buffer, RING_WAIT_NANOS_OFFSET, Math.max(0, ringWaitNanos));
        LONGS.setRelease(buffer, MAGIC_OFFSET, MAGIC);
    }

    /** Fails with name=value context unless this region holds a mailbox of this layout and of this mapping's ring capacity. */
    public void checkHeader() {
        int capacity = (int) INTS.get(buffer, RING_CAPACITY_OFFSET);
        MailboxDescriptor.checkHeader((long) LONGS.getAcquire(buffer, MAGIC_OFFSET), (int) INTS.get(buffer, LAYOUT_VERSION_OFFSET),
                (int) INTS.get(buffer, MAILBOX_LENGTH_OFFSET), capacity);
        if (capacity != ringCapacity) {
            throw new MailboxException("ring capacity differs from the mapping: ringCapacity=" + capacity + " mapped=" + ringCapacity);
        }
    }

    public long magic() {
        return (long) LONGS.getAcquire(buffer, MAGIC_OFFSET);
    }

    public ProtocolMode protocolMode() {
        return ProtocolMode.ofCode((int) INTS.get(buffer, PROTOCOL_MODE_OFFSET));
    }

    public long spawnEpoch() {
        return (long) LONGS.getAcquire(buffer, SPAWN_EPOCH_OFFSET);
    }

    public int parentPid() {
        return (int) INTS.getAcquire(buffer, PARENT_PID_OFFSET);
    }

    public int childPidAcquire() {
        return (int) INTS.getAcquire(buffer, CHILD_PID_OFFSET);
    }

    public void childPidRelease(int pid) {
        INTS.setRelease(buffer, CHILD_PID_OFFSET, pid);
    }

    // ---------------------------------------------------------------- state word

    public long stateAcquire() {
        return (long) LONGS.getAcquire(buffer, STATE_WORD_OFFSET);
    }

    /**
     * Sticky transition: CAS the state word from exactly {@code expected} (the word the writer last read) to
     * {@code toState} with the next sequence number, then record it in the ring.
     *
     * @return the new word, or {@link #TRANSITION_FAILED} when the state word was not {@code expected}
     */
    public long casTransition(long expected, int toState, WriterRole writer, int writerPid) {
        long next = stateWord(toState, writer, seq(expected) + 1);
        if (!LONGS.compareAndSet(buffer, STATE_WORD_OFFSET, expected, next)) {
            return TRANSITION_FAILED;
        }
        recordTransition(seq(next), System.nanoTime(), state(expected), toState, writer, writerPid);
        return next;
    }

    /**
     * Legacy transition (reproduction only): a plain release store computed from {@code readWord}, which may
     * be stale: whatever was written since is erased. Recorded in the ring like any transition, so two records
     * with the same seq are the journal's evidence of the lost update.
     */
    public long storeTransition(long readWord, int toState, WriterRole writer, int writerPid) {
        long next = stateWord(toState, writer, seq(readWord) + 1);
        LONGS.setRelease(buffer, STATE_WORD_OFFSET, next);
        recordTransition(seq(next), System.nanoTime(), state(readWord), toState, writer, writerPid);
        return next;
    }

    /** {@link #casTransition} in sticky mode, {@link #storeTransition} in legacy mode. */
    public long transition(ProtocolMode mode, long readWord, int toState, WriterRole writer, int writerPid) {
        return mode == ProtocolMode.STICKY
                ? casTransition(readWord, toState, writer, writerPid)
                : storeTransition(readWord, toState, writer, writerPid);
    }

    // ---------------------------------------------------------------- shutdown, ack, heartbeat

    public long shutdownAcquire() {
        return (long) LONGS.getAcquire(buffer, SHUTDOWN_WORD_OFFSET);
    }

    /** The one write the shutdown word ever gets: CAS 0 -> epoch. Returns the word found (0 when this call won). */
    public long casShutdown(long epoch) {
        if (epoch == 0) {
            throw new MailboxException("shutdown epoch must be non-zero: epoch=0");
        }
        return (long) LONGS.compareAndExchange(buffer, SHUTDOWN_WORD_OFFSET, 0L, epoch);
    }

    public long ackAcquire() {
        return (long) LONGS.getAcquire(buffer, SHUTDOWN_ACK_OFFSET);
    }

    /** Records the first sighting of shutdown; later calls leave the first stamp. Returns true if this call stamped. */
    public boolean casAck(long monotonicNanos) {
        return LONGS.compareAndSet(buffer, SHUTDOWN_ACK_OFFSET, 0L, monotonicNanos == 0 ? 1L : monotonicNanos);
    }

    public long heartbeatAcquire() {
        return (long) LONGS.getAcquire(buffer, HEARTBEAT_OFFSET);
    }

    /** Advances the heartbeat (child only). */
    public void beat() {
        LONGS.getAndAddRelease(buffer, HEARTBEAT_OFFSET, 1L);
    }

    // ---------------------------------------------------------------- doorbell (docs/MAILBOX.md, "The doorbell")

    /**
     * Child: announces (1) or withdraws (0) its sleep. Volatile: the child's re-check of the state and shutdown words
     * that follows must not pass this store (a Dekker pattern with the parent's publish; DoorbellLitmus).
     */
    public void sleepingVolatile(long sleeping) {
        LONGS.setVolatile(buffer, DOORBELL_SLEEPING_OFFSET, sleeping);
    }

    /** Parent: whether the child announced its sleep; volatile, after the publishing CAS (a full fence between). */
    public long sleepingVolatile() {
        return (long) LONGS.getVolatile(buffer, DOORBELL_SLEEPING_OFFSET);
    }

    /** Child re-check after announcing the sleep: the state word, volatile (see {@link #sleepingVolatile(long)}). */
    public long stateVolatile() {
        return (long) LONGS.getVolatile(buffer, STATE_WORD_OFFSET);
    }

    /** Child re-check: the shutdown word, volatile. */
    public long shutdownVolatile() {
        return (long) LONGS.getVolatile(buffer, SHUTDOWN_WORD_OFFSET);
    }

    /** Parent: one ring (the futex word + 1, volatile). Returns the new count. */
    public int ringDoorbell() {
        return (int) INTS.getAndAdd(buffer, DOORBELL_RING_OFFSET, 1) + 1;
    }

    /** The number of rings so far (wraps at 2^32); acquire. */
    public int doorbellRingsAcquire() {
        return (int) INTS.getAcquire(buffer, DOORBELL_RING_OFFSET);
    }

    /** The mapped region itself (direct; position 0 = the mailbox's first byte): for the parent's futex wake only. */
    public ByteBuffer directRegion() {
        return buffer.duplicate().order(ByteOrder.nativeOrder());
    }

    // ---------------------------------------------------------------- command and result areas

    /** Parent: fills the command area; the state-word transition that follows publishes it. */
    public void writeCommand(long commandId, int opcode, long argument) {
        LONGS.set(buffer, COMMAND_ID_OFFSET, commandId);
        INTS.set(buffer, OPCODE_OFFSET, opcode);
        LONGS.set(buffer, ARGUMENT_OFFSET, argument);
    }

    public long commandId() {
        return (long) LONGS.get(buffer, COMMAND_ID_OFFSET);
    }

    public int opcode() {
        return (int) INTS.get(buffer, OPCODE_OFFSET);
    }

    public long argument() {
        return (long) LONGS.get(buffer, ARGUMENT_OFFSET);
    }

    public long gateAcquire() {
        return (long) LONGS.getAcquire(buffer, GATE_OFFSET);
    }

    public void gateRelease(long value) {
        LONGS.setRelease(buffer, GATE_OFFSET, value);
    }

    /** Child: fills the result area; the state-word transition that follows publishes it. */
    public void writeResult(long commandId, long value, int errorCode, String errorText) {
        LONGS.set(buffer, RESULT_ID_OFFSET, commandId);
        LONGS.set(buffer, RESULT_VALUE_OFFSET, value);
        INTS.set(buffer, ERROR_CODE_OFFSET, errorCode);
        byte[] text = errorText == null ? new byte[0] : errorText.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, ERROR_TEXT_LENGTH);
        for (int i = 0; i < length; i++) {
            buffer.put(ERROR_TEXT_OFFSET + i, text[i]);
        }
        INTS.set(buffer, ERROR_LENGTH_OFFSET, length);
    }

    public long resultId() {
        return (long) LONGS.get(buffer, RESULT_ID_OFFSET);
    }

    public long resultValue() {
        return (long) LONGS.get(buffer, RESULT_VALUE_OFFSET);
    }

    public int errorCode() {
        return (int) INTS.get(buffer, ERROR_CODE_OFFSET);
    }

    public String errorText() {
        int length = Math.max(0, Math.min((int) INTS.get(buffer, ERROR_LENGTH_OFFSET), ERROR_TEXT_LENGTH));
        byte[] text = new byte[length];
        for (int i = 0; i < length; i++) {
            text[i] = buffer.get(ERROR_TEXT_OFFSET + i);
        }
        return new String(text, StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- transition ring

    public long ringHeadAcquire() {
        return (long) LONGS.getAcquire(buffer, RING_HEAD_OFFSET);
    }

    public long ringConsumerPositionAcquire() {
        return (long) LONGS.getAcquire(buffer, RING_CONSUMER_POSITION_OFFSET);
    }

    /** Parent's drainer: every ticket below {@code position} is journaled (or counted lost); writers may reuse their slots. */
    public void ringConsumerPositionRelease(long position) {
        LONGS.setRelease(buffer, RING_CONSUMER_POSITION_OFFSET, position);
    }

    public boolean ringFlowControlAcquire() {
        return (long) LONGS.getAcquire(buffer, RING_FLOW_CONTROL_OFFSET) != 0;
    }

    /** Parent's drainer: on while it is live and publishes its position (set the position first), off when it stops. */
    public void ringFlowControlRelease(boolean on) {
        LONGS.setRelease(buffer, RING_FLOW_CONTROL_OFFSET, on ? 1L : 0L);
    }

    public long ringWaitNanos() {
        return (long) LONGS.get(buffer, RING_WAIT_NANOS_OFFSET);
    }

    /** Parent process only: {@code listener} runs when one of this process's writers finds the ring full. */
    public void onRingFull(Runnable listener) {
        this.ringFullListener = listener;
    }

    /**
     * Writes one ring record: claim a ticket with fetch-and-add on the ring head; if flow control is on and the
     * ticket would lap the parent's consumer position, wait for it ({@link #awaitRingSpace}); mark the slot busy,
     * write the body, publish with a release store of ticket + 1 (a seqlock: readers re-check the ticket).
     */
    public void recordTransition(long seq, long timeNanos, int from, int to, WriterRole writer, int writerPid) {
        long ticket = (long) LONGS.getAndAdd(buffer, RING_HEAD_OFFSET, 1L);
        if (ticket - ringLimit >= 0 && ringFlowControlAcquire()) {
            long limit = ringConsumerPositionAcquire() + ringCapacity;
            ringLimit = limit;
            if (ticket - limit >= 0) {
                awaitRingSpace(ticket, writer);
            }
        }
        int slot = ringSlotOffset(ticket, ringCapacity);
        LONGS.setOpaque(buffer, slot + RECORD_TICKET_OFFSET, 0L);
        VarHandle.storeStoreFence(); // the busy mark is visible before any body byte changes
        LONGS.setOpaque(buffer, slot + RECORD_SEQ_OFFSET, seq);
        LONGS.setOpaque(buffer, slot + RECORD_TIME_OFFSET, timeNanos);
        LONGS.setOpaque(buffer, slot + RECORD_ORIGIN_OFFSET, origin(from, to, writer.code(), writerPid));
        LONGS.setRelease(buffer, slot + RECORD_TICKET_OFFSET, ticket + 1);
    }

    /**
     * Flow control (docs/MAILBOX.md): waits until the parent has drained the record this ticket's slot still
     * holds, spinning, then yielding, then parking ({@link IdleBackoff}), for at most {@link #ringWaitNanos()};
     * a child beats meanwhile (it is waiting, not wedged). The condition is checked before the clock, so a
     * writer that was itself stopped past the bound does not lap a parent that drained meanwhile. If the parent
     * still has not drained (stopped, dead, wedged) or turned flow control off, the writer laps: the record of
     * {@code ticket - capacity} is lost, and the drainer, whose seqlock read of that slot fails, journals the
     * exact lost sequence numbers as a RingOverrun. Returns true when it had to lap.
     */
    boolean awaitRingSpace(long ticket, WriterRole writer) {
        Runnable listener = ringFullListener;
        if (listener != null) {
            listener.run();
        }
        long bound = ringWaitNanos();
        long start = System.nanoTime();
        IdleBackoff backoff = new IdleBackoff();
        while (ringFlowControlAcquire() && ticket - ringConsumerPositionAcquire() >= ringCapacity) {
            if (System.nanoTime() - start >= bound) {
                return true;
            }
            if (writer == WriterRole.CHILD) {
                beat();
            }
            backoff.idle();
        }
        return false;
    }

    static long origin(int from, int to, int writerCode, int writerPid) {
        return (from & 0xFFL) | (to & 0xFFL) << 8 | (writerCode & 0xFFL) << 16 | (writerPid & 0xFFFF_FFFFL) << 32;
    }

    /**
     * Where {@link #readRingInto} puts a record as it is stored: the parent's batch of packed transitions
     * ({@code MailboxTransitionBatch.Builder::addPacked}; an interface here, so this class stays JDK-only).
     */
    @FunctionalInterface
    public interface PackedRecordSink {
        void addPacked(long seq, long timeNanos, long origin);
    }

    /**
     * The drainer's straight path: when the record of {@code ticket} is published, intact and carries {@code seq}, adds
     * it to {@code into} as it is stored (seq, time, origin word: a packed transition is the ring record without its
     * ticket) and returns true, allocating nothing; otherwise returns false ({@link #readRing} tells what it is).
     */
    public boolean readRingInto(long ticket, long seq, PackedRecordSink into) {
        int slot = ringSlotOffset(ticket, ringCapacity);
        long marker = (long) LONGS.getAcquire(buffer, slot + RECORD_TICKET_OFFSET);
        if (marker != ticket + 1 || (long) LONGS.getOpaque(buffer, slot + RECORD_SEQ_OFFSET) != seq) {
            return false;
        }
        long time = (long) LONGS.getOpaque(buffer, slot + RECORD_TIME_OFFSET);
        long origin = (long) LONGS.getOpaque(buffer, slot + RECORD_ORIGIN_OFFSET);
        VarHandle.loadLoadFence(); // body reads complete before the ticket is checked again
        if ((long) LONGS.getAcquire(buffer, slot + RECORD_TICKET_OFFSET) != marker) {
            return false;
        }
        into.addPacked(seq, time, origin);
        return true;
    }

    /**
     * Reads the record of {@code ticket}: {@link TransitionRecord#PENDING} while it is claimed but not yet
     * published (or never written), {@link TransitionRecord#OVERWRITTEN} once a later ticket reused the slot.
     */
    public TransitionRecord readRing(long ticket) {
        int slot = ringSlotOffset(ticket, ringCapacity);
        long marker = (long) LONGS.getAcquire(buffer, slot + RECORD_TICKET_OFFSET);
        if (marker != ticket + 1) {
            return marker > ticket + 1 ? TransitionRecord.OVERWRITTEN : PENDING;
        }
        long seq = (long) LONGS.getOpaque(buffer, slot + RECORD_SEQ_OFFSET);
        long time = (long) LONGS.getOpaque(buffer, slot + RECORD_TIME_OFFSET);
        long origin = (long) LONGS.getOpaque(buffer, slot + RECORD_ORIGIN_OFFSET);
        VarHandle.loadLoadFence(); // body reads complete before the ticket is checked again
        if ((long) LONGS.getAcquire(buffer, slot + RECORD_TICKET_OFFSET) != marker) {
            return TransitionRecord.OVERWRITTEN;
        }
        return new TransitionRecord(ticket, seq, time, (int) (origin & 0xFF), (int) (origin >>> 8 & 0xFF),
                (int) (origin >>> 16 & 0xFF), (int) (origin >>> 32));
    }
}
