package dev.vigil.close.decision;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code /proc/<pid>} says about a process: the State letter of {@code status}, {@code wchan},
 * the first frames of {@code stack} (readable only with CAP_SYS_ADMIN; empty otherwise), and for a mailbox child
 * whether it still maps its mailbox file ({@code maps}) and what it runs ({@code exe}).
 *
 * @param state       '?' when the process is gone or unreadable
 * @param wchan       "?" when unreadable, "-" when the process is running (wchan reads "0")
 * @param mapsMailbox whether any part of the mailbox file is mapped into the process; null when not asked (no
 *                    mailbox) or unreadable
 * @param exe         the program it runs now ({@code /proc/PID/exe}, blanks as '_'); null when unreadable or not asked
 */
public record ProcSnapshot(char state, String wchan, List<String> stack, Boolean mapsMailbox, String exe) {
    private static final int STACK_FRAMES = 4;

    public ProcSnapshot {
        stack = List.copyOf(stack);
    }

    public ProcSnapshot(char state, String wchan, List<String> stack) {
        this(state, wchan, stack, null, null);
    }

    public static ProcSnapshot read(int pid) {
        return read(pid, null);
    }

    /**
     * As {@link #read(int)}, and for a child with a mailbox in {@code mailboxFile} (null: none) whether it still maps
     * it: a child that unmapped its mailbox, or exec'd another program after INIT_READY (an exec drops every mapping),
     * can no longer see its shutdown word.
     */
    public static ProcSnapshot read(int pid, Path mailboxFile) {
        Path dir = Path.of("/proc", Integer.toString(pid));
        Boolean maps = mailboxFile == null ? null : mapsFile(dir, mailboxFile);
        String exe = mailboxFile == null ? null : exe(dir);
        return new ProcSnapshot(state(dir), wchan(dir), stack(dir), maps, exe);
    }

    /** True when a line of {@code maps} names {@code file}'s inode and file name; null when either is unreadable. */
    private static Boolean mapsFile(Path dir, Path file) {
        try {
            long inode = ((Number) Files.getAttribute(file, "unix:ino")).longValue();
            String name = " " + file.toAbsolutePath().normalize();
            try (java.util.stream.Stream<String> lines = Files.lines(dir.resolve("maps"))) {
                return lines.anyMatch(l -> {
                    // "7f..-7f.. rw-s 00000000 00:2c 1234 /path/to/map (deleted)"
                    String[] f = l.trim().split("\\s+", 6);
                    return f.length == 6 && f[4].equals(Long.toString(inode)) && (" " + f[5]).startsWith(name);
                });
            }
        } catch (IOException | RuntimeException e) {
            return null; // gone, not ours to read, or the file itself is gone: nothing said
        }
    }

    private static String exe(Path dir) {
        try {
            return Files.readSymbolicLink(dir.resolve("exe")).toString().replaceAll("\\s", "_");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static char state(Path dir) {
        try {
            for (String line : Files.readAllLines(dir.resolve("status"))) {
                if (line.startsWith("State:")) {
                    String v = line.substring("State:".length()).trim();
                    return v.isEmpty() ? '?' : v.charAt(0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // Gone or unreadable: reported as '?', the reaper has the last word on whether it lives.
        }
        return '?';
    }

    private static String wchan(Path dir) {
        try {
            String w = Files.readString(dir.resolve("wchan")).trim();
            return w.isEmpty() || w.equals("0") ? "-" : w;
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private static List<String> stack(Path dir) {
        List<String> frames = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(dir.resolve("stack"))) {
                // "[<0>] do_signal_stop+0x.../0x..." -> "do_signal_stop"
                String f = line.replaceFirst("^\\[<[0-9a-fx]+>\\]\\s*", "").replaceFirst("\\+0x.*$", "").trim();
                if (!f.isEmpty()) {
                    frames.add(f);
                }
                if (frames.size() == STACK_FRAMES) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not readable without privileges: evidence just has no stack.
        }
        return frames;
    }
}
