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

    /**
     * The command line, arguments joined by spaces (or [comm] for a kernel thread / zombie); "?" when gone. Control
     * characters are escaped ({@code \\n}, {@code \\x1b}): a {@code sh -c} or {@code python3 -c} script's newlines
     * would break the one line a report gives each process.
     */
    static String command(int pid) {
        Path dir = PROC.resolve(Integer.toString(pid));
        try {
            byte[] raw = Files.readAllBytes(dir.resolve("cmdline"));
            if (raw.length > 0) {
                String s = new String(raw, StandardCharsets.UTF_8);
                return oneLine(s.replace('\0', ' ').trim());
            }
            return "[" + Files.readString(dir.resolve("comm"), StandardCharsets.UTF_8).trim() + "]";
        } catch (NoSuchFileException e) {
            return "?";
        } catch (IOException e) {
            return "?";
        }
    }

    /** The cgroup v2 path of {@code pid} relative to the mount (the {@code 0::} line of /proc/PID/cgroup); null when gone. */
    static String cgroup(int pid) {
        return cgroupIn(PROC.resolve(Integer.toString(pid)).resolve("cgroup"));
    }

    /** The {@code 0::} line's path in {@code file} (a /proc/PID/cgroup); null when unreadable or absent. */
    static String cgroupIn(Path file) {
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.startsWith("0::")) {
                    return line.substring(3);
                }
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** A process's parent and process group, from one read of its /proc/PID/stat. */
    record Lineage(int parent, int group) {
    }

    /** Every process's parent and process group now (one scan of /proc); a process gone meanwhile is left out. */
    static java.util.Map<Integer, Lineage> lineages() {
        java.util.Map<Integer, Lineage> out = new java.util.HashMap<>();
        try (java.nio.file.DirectoryStream<Path> proc = Files.newDirectoryStream(PROC,
                p -> isPid(p.getFileName().toString()))) {
            for (Path p : proc) {
                int pid = Integer.parseInt(p.getFileName().toString());
                String[] f = statFields(pid);
                if (f != null) {
                    out.put(pid, new Lineage(Integer.parseInt(f[1]), Integer.parseInt(f[2])));
                }
            }
        } catch (IOException e) {
            throw new ContainmentException("/proc unreadable: " + e.getMessage(), e);
        }
        return out;
    }

    static boolean isPid(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            if (!Character.isDigit(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static ContainedProcess describe(int pid) {
        return new ContainedProcess(pid, parentPid(pid), state(pid), command(pid));
    }

    /** {@code s} with its control characters escaped: \\n, \\t, \\r, else \\xNN. */
    static String oneLine(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\n') {
                sb.append("\\n");
            } else if (c == '\t') {
                sb.append("\\t");
            } else if (c == '\r') {
                sb.append("\\r");
            } else if (c < 0x20 || c == 0x7f) {
                sb.append(String.format(java.util.Locale.ROOT, "\\x%02x", (int) c));
            } else {
                sb.append(c);
            }
        }
        return sb.toString();
    }
}
