package dev.vigil.recovery;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import dev.vigil.contain.ProcessIdentity;
import dev.vigil.journal.JournalOwner;

/**
 * One live orchestrator per journal directory. {@link #acquire} takes an exclusive lock (fcntl, through
 * {@link FileChannel#tryLock}) on {@code <journal dir>-owner.lock} and writes its pid into it; the kernel drops
 * the lock when the owner dies, however it dies. A second orchestrator fails at once with
 * {@link JournalDirInUseException} naming the owner's pid, before it opens the journal or the mailbox map, so
 * Chronicle Map's recovery never runs on a file a live process has open.
 */
public final class JournalDirOwnership implements AutoCloseable {
    private final FileChannel channel;
    private final FileLock lock;
    private final Path ownerFile;
    private final OwnerRecord previous;

    private JournalDirOwnership(FileChannel channel, FileLock lock, Path ownerFile, OwnerRecord previous) {
        this.channel = channel;
        this.lock = lock;
        this.ownerFile = ownerFile;
        this.previous = previous;
    }

    /** {@code <journal dir><suffix>}, beside the journal directory. */
    public static Path sibling(Path journalDir, String suffix) {
        return JournalOwner.sibling(journalDir, suffix);
    }

    /**
     * @throws JournalDirInUseException when a live process holds the lock
     */
    public static JournalDirOwnership acquire(Path journalDir) {
        Path lockFile = sibling(journalDir, JournalOwner.LOCK_SUFFIX);
        FileChannel ch;
        try {
            Files.createDirectories(lockFile.getParent());
            ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IllegalArgumentException("journal dir=" + journalDir + " lock file=" + lockFile + " cannot be opened: "
                    + dev.vigil.journal.JournalException.reason(e), e);
        }
        FileLock lock;
        int sameJvm = -1;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
            // this very JVM owns it; do not read the file: closing another descriptor of it would drop our fcntl lock
            sameJvm = (int) ProcessHandle.current().pid();
        } catch (IOException e) {
            close(ch);
            throw new IllegalArgumentException("journal dir=" + journalDir + " lock file=" + lockFile + " cannot be locked: "
                    + dev.vigil.journal.JournalException.reason(e), e);
        }
        if (lock == null) {
            close(ch);
            int owner = sameJvm > 0 ? sameJvm : ownerPid(lockFile);
            throw new JournalDirInUseException("journal dir=" + journalDir.toAbsolutePath().normalize()
                    + " is in use by orchestrator pid=" + (owner > 0 ? owner : "unknown")
                    + " (one orchestrator per journal dir; lock file=" + lockFile + ")", owner);
        }
        try {
            writeOwner(ch);
            Path ownerFile = sibling(journalDir, "-owner.json");
            OwnerRecord previous = Files.exists(ownerFile) ? OwnerRecord.read(ownerFile) : null;
            return new JournalDirOwnership(ch, lock, ownerFile, previous);
        } catch (RuntimeException e) {
            close(ch);
            throw new IllegalStateException("journal dir=" + journalDir + " owner record beside it cannot be read: " + e.getMessage(), e);
        }
    }

    /**
     * Names this process in the lock file for a refused second orchestrator's message. Best effort: the
     * lock itself is the guarantee, and a full file system (journaling then stops, named by the writer)
     * must not keep the pools from running and closing; a refused peer then says owner pid=unknown.
     */
    private static void writeOwner(FileChannel ch) {
        try {
            ProcessIdentity self = ProcessIdentity.self();
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(JournalOwner.lockText(self.pid(), self.startTicks()).getBytes(StandardCharsets.US_ASCII)), 0);
            ch.force(false);
        } catch (IOException e) {
            // see above: the lock is held, only the courtesy text is missing
        }
    }

    private static int ownerPid(Path lockFile) {
        try {
            return JournalOwner.pid(Files.readString(lockFile, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static void close(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException ignored) {
            // nothing held
        }
    }

    /** The record the previous owner left (it died, or kept survivors), or null after a clean close. */
    public OwnerRecord previousOwner() {
        return previous;
    }

    /** Writes this owner's record, replacing the previous one (to be called once that one is recovered). */
    public void record(OwnerRecord mine) {
        try {
            mine.write(ownerFile);
        } catch (IllegalStateException e) {
            // A full file system must not keep pools from running (the journal writer names its own gap);
            // what is lost is only the automatic recovery after a crash of this process: say so, once.
            System.err.println("vigil: warning: " + e.getMessage()
                    + "; a crash of this orchestrator will not be recovered automatically on the next start");
        }
    }

    /** Releases the lock; the owner record stays when {@code keepRecord} (survivors were kept alive). */
    public void release(boolean keepRecord) {
        try {
            if (!keepRecord) {
                Files.deleteIfExists(ownerFile);
            }
        } catch (IOException ignored) {
            // the next owner recovers from a stale record: kills nothing that is not ours
        } finally {
            close();
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it anyway
        }
        close(channel);
    }
}
