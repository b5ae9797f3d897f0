package dev.vigil.journal;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

import jnr.ffi.LastError;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.SaveError;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;

/**
 * Makes the file system give the pages of a cycle file before an excerpt is written into them through the map.
 *
 * <p>Why: a cycle file is sparse and memory-mapped; on a full file system (tmpfs, a full disk) the first store
 * into a page that has no block raises SIGBUS, which the JVM reports as an {@code InternalError} "a fault occurred
 * in a recent unsafe memory access" <em>asynchronously</em>: at a later safepoint poll, possibly after the
 * excerpt's header was completed over a body whose tail never reached the file (seen: the last event before a
 * full tmpfs read back with a CRC32C mismatch). So the pages ahead of the write position are made to exist first,
 * with a synchronous error, before anything of the excerpt is completed.
 *
 * <p>How: {@code madvise(MADV_POPULATE_WRITE)} (Linux 5.14) over the writer's own mapping of the pages ahead: it
 * faults them in as a first store would (the file system allocates or reserves their blocks: ext4's
 * {@code page_mkwrite}, tmpfs's page), so the stores that follow fault no more, and where a store would have raised
 * SIGBUS it fails with EFAULT instead. Then, and wherever the range is not inside the mapping of the current chunk
 * or the kernel lacks the advice, zeros are written with {@code pwrite} into the file over that range, which
 * allocates the pages with the file system's own error ({@code IOException: No space left on device}) and is what
 * an EFAULT is turned into. Bytes past Chronicle's write position are unwritten (zero), and the caller holds
 * Chronicle's write lock, so neither the advice (which changes no byte) nor the zeros ever overwrite an event.
 *
 * <p>Past a file's first chunk, the chunk after the one being written is populated ahead on a thread of its own
 * ({@link PagesAhead}): the appender takes it as reserved only where that thread's advice succeeded.
 *
 * <p>Cost per 24-byte packed transition, first touch of its page included (a C loop on this VM's ext4, 2026-12-03):
 * plain stores into the map ~15 ns, {@code pwrite} of zeros ahead ~41-50 ns (a copy of zeros and a fault later),
 * {@code MADV_POPULATE_WRITE} ahead ~10-13 ns (one system call per {@link #CHUNK}, no fault in the write path).
 */
final class PageReservation implements AutoCloseable {
    /** How far ahead of the write position pages are reserved at a time. */
    static final int CHUNK = 256 << 10;
    /**
     * Reserved room kept ahead of the write position: more than one excerpt plus what Chronicle writes between
     * two excerpts (its index arrays are metadata excerpts of tens of KiB).
     */
    static final int HEADROOM = 64 << 10;
    /** madvise(2) advice: populate (prefault) page tables writable, faulting in all pages of the range. */
    static final int MADV_POPULATE_WRITE = 23;
    private static final int EINVAL = 22;
    private static final long PAGE = 4096;
    /** -Dvigil.journal.populate=false: pwrite zeros only (the way before MADV_POPULATE_WRITE, for comparison). */
    private static final boolean POPULATE = !"false".equals(System.getProperty("vigil.journal.populate"));
    /**
     * -Dvigil.journal.pagesAhead=false: no pages thread, the appender reserves every chunk itself (for comparison; read
     * per journal opened, so that one JVM can compare the two).
     */
    private final boolean pagesAheadWanted = !"false".equals(System.getProperty("vigil.journal.pagesAhead"));

    /** libc's madvise, bound on the first reservation (jnr-ffi, one function: not Chronicle's whole PosixAPI). */
    @SaveError
    public interface Libc {
        int madvise(long address, long length, int advice);
    }

    private static final class Bound {
        static final Libc LIBC = LibraryLoader.create(Libc.class).load("c");
        static final jnr.ffi.Runtime RUNTIME = jnr.ffi.Runtime.getRuntime(LIBC);
    }

    private ByteBuffer zeros;
    /** The pages thread, started with the first chunk it can populate ahead; null before. */
    private PagesAhead pagesAhead;
    /** Whether a chunk of the current file was reserved yet. */
    private boolean reservedInFile;
    /** Counts the files written: a chunk populated ahead in an earlier one is not this one's. */
    private long generation;
    private File file;
    private FileChannel channel;
    private long reservedUpTo;
    /** False once the kernel refused the advice as unknown (before 5.14): zeros only from then on. */
    private boolean populate = POPULATE;

    /**
     * Ensures that {@code file}'s pages from {@code position} to at least {@code position + length + HEADROOM} are
     * allocated. {@code position} must be at or past the write position of the file (every byte from it on
     * unwritten); {@code mapping} is the writer's mapped chunk of {@code file} around it (any other store: zeros only).
     *
     * @throws UncheckedIOException the file system could not give them (e.g. "No space left on device")
     */
    void ensure(File file, BytesStore<?, ?> mapping, long position, int length) {
        if (file != this.file && !file.equals(this.file)) { // the same File while the cycle lasts: File.equals compares paths
            forgetFile();
            this.file = file;
            this.reservedUpTo = position;
            generation++;
        }
        long needed = position + length + HEADROOM;
        if (needed <= reservedUpTo) {
            return;
        }
        long from = Math.max(position, reservedUpTo);
        long ahead = pagesAhead == null ? from : pagesAhead.populatedFrom(generation, from);
        boolean beyondFirstChunk = reservedInFile;
        reservedInFile = true;
        if (ahead >= needed) {
            reservedUpTo = ahead; // the chunk after the last one, populated ahead on the pages thread
        } else {
            long to = position + CHUNK;
            if (!(populate && populated(mapping, from, to))) {
                writeZeros(from, to);
            }
            reservedUpTo = to;
        }
        // The next chunk is asked of the pages thread, which a journal starts once it writes past its first chunk.
        if (populate && pagesAheadWanted && beyondFirstChunk && mapping instanceof MappedBytesStore mapped
                && mapped.inside(reservedUpTo, CHUNK)) {
            if (pagesAhead == null) {
                pagesAhead = new PagesAhead();
            }
            pagesAhead.request(generation, mapped, reservedUpTo, reservedUpTo + CHUNK);
        }
    }

    /**
     * Whether the pages from {@code position} to {@code position + length + HEADROOM} of the current file are reserved
     * already, i.e. {@link #ensure} would have nothing to do.
     */
    boolean covers(long position, int length) {
        return position + length + HEADROOM <= reservedUpTo;
    }

    /** Whether {@code file}'s pages before {@code position} are all reserved (tests: what the appender wrote in it). */
    boolean reservedBefore(File file, long position) {
        return file.equals(this.file) && position <= reservedUpTo;
    }

    /** Populates {@code [from, to)} through {@code mapping} if it lies inside it; false when the zeros must do it. */
    private boolean populated(BytesStore<?, ?> mapping, long from, long to) {
        if (!(mapping instanceof MappedBytesStore mapped) || !mapped.inside(from, to - from)) {
            return false; // the range leaves the current chunk's mapping (once a chunk): zeros
        }
        int error = populate(mapped, from, to);
        if (error == EINVAL) {
            populate = false; // a kernel before 5.14: the advice is unknown
        }
        return error == 0; // EFAULT (a store would have raised SIGBUS: full), ENOMEM: the zeros name the error
    }

    /**
     * {@code madvise(MADV_POPULATE_WRITE)} over the pages of {@code [from, to)}, which must lie inside {@code mapped}:
     * 0, or the error number.
     */
    static int populate(MappedBytesStore mapped, long from, long to) {
        // The chunk's mapping starts page-aligned in the file and memory (mmap), so the aligned range stays inside it.
        long address = mapped.addressForWrite(from);
        long start = address & -PAGE;
        long end = (address + (to - from) + PAGE - 1) & -PAGE;
        if (Bound.LIBC.madvise(start, end - start, MADV_POPULATE_WRITE) == 0) {
            return 0;
        }
        return LastError.getLastError(Bound.RUNTIME);
    }

    private void writeZeros(long from, long to) {
        try {
            if (channel == null) {
                channel = FileChannel.open(file.toPath(), StandardOpenOption.WRITE);
            }
            if (zeros == null) {
                zeros = ByteBuffer.allocateDirect(CHUNK);
            }
            long at = from;
            while (at < to) {
                zeros.clear().limit((int) Math.min(CHUNK, to - at));
                at += channel.write(zeros, at);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("file=" + file + " could not be extended to offset " + to + ": "
                    + e.getMessage(), e);
        }
    }

    /** Whether the pages thread is done with what it was asked for (tests: wait for it before the next ensure). */
    boolean pagesAheadIdle() {
        return pagesAhead == null || pagesAhead.idle();
    }

    /** Forgets the current file (the next {@link #ensure} starts over in the one it names). */
    private void forgetFile() {
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
        reservedInFile = false;
    }

    /** Forgets the current file and stops the pages thread. */
    @Override
    public void close() {
        forgetFile();
        if (pagesAhead != null) {
            pagesAhead.close();
            pagesAhead = null;
        }
    }
}
