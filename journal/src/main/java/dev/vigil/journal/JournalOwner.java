package dev.vigil.journal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Who writes a journal directory right now. The orchestrator that owns the directory holds an fcntl lock on
 * {@code <journal dir>-owner.lock} for as long as it runs and writes {@code pid=N startTicks=T} into it
 * (the orchestrator's {@code JournalDirOwnership}); the text stays when it ends. A reader cannot take the lock
 * to look (a starting orchestrator would then find the directory in use), so it compares the text with
 * {@code /proc/N/stat}: the same pid with the same start time, not a zombie, is the owner still running.
 */
public final class JournalOwner {
    /** The lock file's name is the journal directory's followed by this. */
    public static final String LOCK_SUFFIX = "-owner.lock";

    private JournalOwner() {
    }

    /**
     * {@code <journal dir><suffix>}, beside the journal directory as the file system names it: symbolic links in
     * the part of the path that exists are resolved first, so every path that reaches one directory (a link to it,
     * a link to a folder above it) gives the same lock file, owner record and mailbox map. Before, a link
     * gave its own lock, and two orchestrators wrote one journal at once (the audit then found hundreds of
     * violations in clean closes).
     */
    public static Path sibling(Path journalDir, String suffix) {
        Path abs = realPath(journalDir);
        return abs.resolveSibling(abs.getFileName() + suffix);
    }

    /**
     * The absolute, normalized path of {@code dir} with the symbolic links of its longest existing prefix resolved
     * (the rest, not created yet, appended as written).
     */
    public static Path realPath(Path dir) {
        Path abs = dir.toAbsolutePath().normalize();
        Path existing = abs;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return abs;
        }
        try {
            return existing.toRealPath().resolve(existing.relativize(abs)).normalize();
        } catch (IOException e) {
            return abs;
        }
    }

    /** What the owner writes into its lock file. */
    public static String lockText(int pid, long startTicks) {
        return "pid=" + pid + " startTicks=" + startTicks + "\n";
    }

    /** The pid a lock file's text names, or -1 when it names none. */
    public static int pid(String lockText) {
        String text = lockText.trim();
        if (!text.startsWith("pid=")) {
            return -1;
        }
        int end = text.indexOf(' ');
        try {
            return Integer.parseInt(end < 0 ? text.substring(4) : text.substring(4, end));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * The pid of the orchestrator writing {@code journalDir} now, or -1 when none is (no lock file, no text in
     * it, or the process it names ended or is another one that got its pid).
     */
    public static int livePid(Path journalDir) {
        String text;
        try {
            text = Files.readString(sibling(journalDir, LOCK_SUFFIX), StandardCharsets.US_ASCII).trim();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        int pid = pid(text);
        int at = text.indexOf("startTicks=");
        if (pid <= 0 || at < 0) {
            return -1;
        }
        String[] stat = procStatFields(pid);
        if (stat == null || stat.length < 20 || stat[0].startsWith("Z") || !stat[19].equals(text.substring(at + "startTicks=".length()).trim())) {
            return -1;
        }
        return pid;
    }

    /**
     * The fields of {@code /proc/PID/stat} after the command name (state at 0, parent pid at 1, start time at 19),
     * or null when the process is gone.
     */
    public static String[] procStatFields(int pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return null;
        }
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 > stat.length()) {
            return null;
        }
        return stat.substring(close + 2).trim().split(" ");
    }
}
