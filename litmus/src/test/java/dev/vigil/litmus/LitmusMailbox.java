package dev.vigil.litmus;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.MappedMailbox;
import dev.vigil.mailbox.WriterRole;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One fresh mailbox per litmus state: the production {@link MappedMailbox} over a direct buffer (the same
 * VarHandle views and access modes as over the map file), plus plain accessors to the same bytes for the
 * weakened variants. Plain here means VarHandle plain mode: no ordering, no atomicity beyond the word.
 */
final class LitmusMailbox {
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** The pid litmus writers put into ring records. */
    static final int PID = 4242;
    /** A command as the parent would place it. */
    static final long COMMAND_ID = 9;
    static final long ARGUMENT = 40;
    /** The state word a pending control request holds: CONTROL_REQUEST by the parent, seq 1. */
    static final long REQUEST = stateWord(MailboxState.CONTROL_REQUEST, WriterRole.PARENT, 1);

    /**
     * Mailboxes are slices of one direct buffer, handed out round-robin and zeroed on reuse: a direct buffer per
     * litmus state (millions per second) made allocation, not the protocol, the test. jcstress keeps at most
     * {@link LitmusSuite#STATES_PER_EPOCH} states alive at once (its -strideSize x -strideCount); the pool holds
     * four times that, so a slice is never reused while a state on it still runs.
     */
    static final int POOL_SLICES = 4 * LitmusSuite.STATES_PER_EPOCH;
    /** The smallest ring keeps the pool small; the ring's capacity does not change any ordering tested here. */
    static final int RING = MIN_RING_CAPACITY;
    static final int MAILBOX_LENGTH = mailboxLength(RING);
    private static final ByteBuffer POOL = ByteBuffer.allocateDirect(POOL_SLICES * MAILBOX_LENGTH).order(ByteOrder.nativeOrder());
    private static final AtomicInteger NEXT = new AtomicInteger();

    final ByteBuffer buffer;
    final MappedMailbox mailbox;

    LitmusMailbox() {
        int slice = Math.floorMod(NEXT.getAndIncrement(), POOL_SLICES);
        buffer = POOL.slice(slice * MAILBOX_LENGTH, MAILBOX_LENGTH).order(ByteOrder.nativeOrder());
        for (int offset = 0; offset < MAILBOX_LENGTH; offset += Long.BYTES) {
            LONGS.set(buffer, offset, 0L);
        }
        VarHandle.fullFence(); // zeroed before the state is handed to the actors (jcstress publishes it too)
        mailbox = MappedMailbox.over(buffer, 0, RING);
    }

    /** A mailbox whose state word already holds a control request (command area filled). */
    static LitmusMailbox withRequest() {
        LitmusMailbox m = new LitmusMailbox();
        m.mailbox.writeCommand(COMMAND_ID, 1, ARGUMENT);
        m.plainSet(STATE_WORD_OFFSET, REQUEST);
        return m;
    }

    /** A command's run time between the child's read of the request and its completion: a few hundred ns. */
    static void runCommand() {
        for (int i = 0; i < 64; i++) {
            Thread.onSpinWait();
        }
    }

    long volatileGet(int offset) {
        return (long) LONGS.getVolatile(buffer, offset);
    }

    void volatileSet(int offset, long value) {
        LONGS.setVolatile(buffer, offset, value);
    }

    long acquireGet(int offset) {
        return (long) LONGS.getAcquire(buffer, offset);
    }

    void releaseSet(int offset, long value) {
        LONGS.setRelease(buffer, offset, value);
    }

    long plainGet(int offset) {
        return (long) LONGS.get(buffer, offset);
    }

    void plainSet(int offset, long value) {
        LONGS.set(buffer, offset, value);
    }
}
