package dev.vigil.close.decision;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code /proc/<pid>} says about a process: the State letter of {@code status}, {@code wchan},
 * and the first frames of {@code stack} (readable only with CAP_SYS_ADMIN; empty otherwise).
 *
 * @param state '?' when the process is gone or unreadable
 * @param wchan "?" when unreadable, "-" when the process is running (wchan reads "0")
 */
public record ProcSnapshot(char state, String wchan, List<String> stack) {
    private static final int STACK_FRAMES = 4;

    public ProcSnapshot {
        stack = List.copyOf(stack);
    }

    public static ProcSnapshot read(int pid) {
        Path dir = Path.of("/proc", Integer.toString(pid));
        return new ProcSnapshot(state(dir), wchan(dir), stack(dir));
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
