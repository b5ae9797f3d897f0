package dev.vigil.contain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import dev.vigil.journal.JournalOwner;

/** What /proc says about one process; every read tolerates the process vanishing (null / -1). */
final class ProcFiles {
    private static final Path PROC = Path.of("/proc");

    private ProcFiles() {
    }

    /** The fields of /proc/PID/stat after the command name (field 3 = index 0), or null when the process is gone. */
    static String[] statFields(int pid) {
        return JournalOwner.procStatFields(pid);
    }

    static int parentPid(int pid) {
        String[] f = statFields(pid);
        return f == null ? -1 : Integer.parseInt(f[1]);
    }

    static int processGroup(int pid) {
        String[] f = statFields(pid);
        return f == null ? -1 : Integer.parseInt(f[2]);
    }

    /** Field 22 of /proc/PID/stat: the start time in clock ticks since boot; -1 when gone. With the pid it names one process for good. */
    static long startTicks(int pid) {
        String[] f = statFields(pid);
        return f == null ? -1 : Long.parseLong(f[19]);
    }

    /** /proc/PID/stat state letter, or '?' when gone. A zombie ('Z') is dead but not yet reaped. */
    static char state(int pid) {
        String[] f = statFields(pid);
        return f == null || f[0].isEmpty() ? '?' : f[0].charAt(0);
    }

    /** The command line, arguments joined by spaces (or [comm] for a kernel thread / zombie); "?" when gone. */
    static String command(int pid) {
        Path dir = PROC.resolve(Integer.toString(pid));
        try {
            byte[] raw = Files.readAllBytes(dir.resolve("cmdline"));
            if (raw.length > 0) {
                String s = new String(raw, StandardCharsets.UTF_8);
                return s.replace('\0', ' ').trim();
            }
            return "[" + Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).trim() + "]";
        } catch (NoSuchFileException e) {
            return "?";
        } catch (IOException e) {
            return "?";
        }
    }

    static ContainedProcess describe(int pid) {
        return new ContainedProcess(pid, parentPid(pid), state(pid), command(pid));
    }
}
