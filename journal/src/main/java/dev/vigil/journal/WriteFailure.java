package dev.vigil.journal;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** Turns a failed journal write into words: a full file system is named as such, by its mount point. */
final class WriteFailure {
    /** Below this many usable bytes a write fault counts as a full file system (a cycle file maps 1 MiB chunks and more). */
    private static final long NEARLY_FULL_BYTES = 4L << 20;

    private WriteFailure() {
    }

    static String describe(Path dir, Throwable t) {
        String full = noSpace(dir, t);
        return full != null ? full : "writing failed: " + JournalException.plain(t);
    }

    /**
     * "no space left on MOUNT (TYPE)" when {@code t} comes from a full file system: an ENOSPC
     * anywhere in its causes, or a fault on a mapped page (writing a sparse cycle file on a full
     * file system raises SIGBUS) while the file system has next to no space left. Null otherwise.
     */
    static String noSpace(Path dir, Throwable t) {
        boolean enospc = false;
        boolean fault = false;
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            String m = String.valueOf(c.getMessage());
            enospc |= m.contains("No space left") || m.contains("ENOSPC")
                    || m.contains("Not enough space to fallocate"); // Chronicle Map's check before it grows a file
            fault |= c instanceof InternalError && m.contains("unsafe memory access");
        }
        FileStore store = storeOf(dir);
        if (!enospc && fault && store != null) {
            try {
                enospc = store.getUsableSpace() < NEARLY_FULL_BYTES;
            } catch (IOException unknown) {
                return null;
            }
        }
        if (!enospc) {
            return null;
        }
        return "no space left on " + (store == null ? "the file system of " + dir : store.toString());
    }

    private static FileStore storeOf(Path dir) {
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                try {
                    return Files.getFileStore(p);
                } catch (IOException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
