package dev.vigil.journal;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReferenceArray;

import net.openhft.chronicle.bytes.Bytes;

/**
 * The encoded bodies of the journal ring's events, off heap: the body of ring sequence {@code s} is at
 * {@code (s & mask) * SLOT_BYTES}, at most {@link #SLOT_BYTES} long (a larger one stays on its slot's heap array). The
 * producer that claimed the sequence copies its encoding there; the appender thread hands it to Chronicle's
 * {@code writeBytes} as it is, an off-heap to mapped-file copy. Before, the appender first copied each body from its
 * slot's heap array into a direct buffer of its own: Chronicle copies a heap array with a Java loop, ~6 % of the
 * appender thread's time (JFR, JournalBench), on the thread that bounds the journal's events/s.
 *
 * <p>Memory is taken a chunk of {@value #SLOTS_PER_CHUNK} slots at a time as the ring first reaches it (an open journal
 * that writes little holds little) and given back by the garbage collector with the writer; never freed while a
 * producer may still write into it.
 */
final class RingBodies {
    /** Room of one slot; events are ~70 bytes (a mailbox transition), larger ones (a close report) stay on the heap. */
    static final int SLOT_BYTES = 128;
    static final int SLOTS_PER_CHUNK = 4096;

    private final int mask;
    private final int slotsPerChunk;
    private final int chunkShift;
    private final AtomicReferenceArray<ByteBuffer> chunks;
    /** The appender's read view of each chunk (appender thread only). */
    private final Bytes<?>[] views;

    RingBodies(int ringSize) {
        this.mask = ringSize - 1;
        this.slotsPerChunk = Math.min(ringSize, SLOTS_PER_CHUNK);
        this.chunkShift = Integer.numberOfTrailingZeros(slotsPerChunk);
        this.chunks = new AtomicReferenceArray<>(ringSize / slotsPerChunk);
        this.views = new Bytes<?>[ringSize / slotsPerChunk];
    }

    /** Producer, for the sequence it claimed: copies {@code body[0, length)} into its slot; false when it has no room. */
    boolean put(long sequence, byte[] body, int length) {
        if (length > SLOT_BYTES) {
            return false;
        }
        int slot = (int) sequence & mask;
        chunk(slot >>> chunkShift).put((slot & (slotsPerChunk - 1)) * SLOT_BYTES, body, 0, length);
        return true;
    }

    private ByteBuffer chunk(int i) {
        ByteBuffer chunk = chunks.get(i);
        if (chunk == null) {
            chunks.compareAndSet(i, null, ByteBuffer.allocateDirect(slotsPerChunk * SLOT_BYTES));
            chunk = chunks.get(i);
        }
        return chunk;
    }

    /**
     * Appender thread, once the sequence is published: the body {@link #put} there, as the readable part of a view
     * (valid until the next call).
     */
    Bytes<?> body(long sequence, int length) {
        int slot = (int) sequence & mask;
        int i = slot >>> chunkShift;
        Bytes<?> view = views[i];
        if (view == null) {
            view = views[i] = Bytes.wrapForRead(chunks.get(i));
            JournalWriter.confineToThisThread(view);
        }
        return view.readPositionRemaining((long) (slot & (slotsPerChunk - 1)) * SLOT_BYTES, length);
    }

    /** Appender thread, at its end: lets go of the views (the memory goes with the writer). */
    void close() {
        for (Bytes<?> view : views) {
            if (view != null) {
                view.releaseLast();
            }
        }
    }
}
