package dev.vigil.journal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

/**
 * Makes the file system give the pages of a cycle file before an excerpt is written into them through the map.
 *
 * <p>Why: a cycle file is sparse and memory-mapped; on a full file system (tmpfs, a full disk) the first store
 * into a page that has no block raises SIGBUS, which the JVM reports as an {@code InternalError} "a fault occurred
 * in a recent unsafe memory access" <em>asynchronously</em>: at a later safepoint poll, possibly after the
 * excerpt's header was completed over a body whose tail never reached the file (seen: the last event before a
 * full tmpfs read back with a CRC32C mismatch). Writing zeros with {@code pwrite} into the file ahead of the write
 * position allocates those pages with a synchronous error instead ({@code IOException: No space left on device}),
 * before anything of the excerpt is completed. Bytes past Chronicle's write position are unwritten (zero), and the
 * caller holds Chronicle's write lock, so the zeros never overwrite an event.
 *
 * <p>Cost: one {@code pwrite} of {@link #CHUNK} zeros per {@code CHUNK - HEADROOM} bytes of journal (the kernel
 * zero-fills a newly faulted page anyway; this adds one copy of zeros).
 */
final class PageReservation implements AutoCloseable {
    /** How far ahead of the write position pages are reserved at a time. */
    static final int CHUNK = 256 << 10;
    /**
     * Reserved room kept ahead of the write position: more than one excerpt plus what Chronicle writes between
     * two excerpts (its index arrays are metadata excerpts of tens of KiB).
     */
    static final int HEADROOM = 64 << 10;

    private final ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK);
    private File file;
    private FileChannel channel;
    private long reservedUpTo;

    /**
     * Ensures that {@code file}'s pages from {@code position} to at least {@code position + length + HEADROOM} are
     * allocated. {@code position} must be at or past the write position of the file (every byte from it on unwritten).
     *
     * @throws UncheckedIOException the file system could not give them (e.g. "No space left on device")
     */
    void ensure(File file, long position, int length) {
        if (file != this.file && !file.equals(this.file)) { // the same File while the cycle lasts: File.equals compares paths
            close();
            this.file = file;
            this.reservedUpTo = position;
        }
        if (position + length + HEADROOM <= reservedUpTo) {
            return;
        }
        long from = Math.max(position, reservedUpTo);
        long to = position + CHUNK;
        try {
            if (channel == null) {
                channel = FileChannel.open(file.toPath(), StandardOpenOption.WRITE);
            }
            long at = from;
            while (at < to) {
                zeros.clear().limit((int) Math.min(CHUNK, to - at));
                at += channel.write(zeros, at);
            }
            reservedUpTo = to;
        } catch (IOException e) {
            throw new UncheckedIOException("file=" + file + " could not be extended to offset " + to + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // a channel only written to; nothing is lost by a failed close
            }
            channel = null;
        }
        file = null;
        reservedUpTo = 0;
    }
}
