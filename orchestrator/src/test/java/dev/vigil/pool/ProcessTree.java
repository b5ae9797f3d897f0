package dev.vigil.pool;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads /proc: the direct children of a process, with state letter and command name. */
public final class ProcessTree {
    /** One process as /proc/<pid>/stat shows it. */
    public record Proc(int pid, int ppid, char state, String comm) {
        @Override
        public String toString() {
            return "pid=" + pid + " state=" + state + " comm=" + comm;
        }
    }

    private ProcessTree() {
    }

    public static int selfPid() {
        return (int) ProcessHandle.current().pid();
    }

    /**
     * Direct children of {@code parent} (zombies included), except orchestrators' guardians: a guardian lives
     * exactly as long as its orchestrator, by design (dev.vigil.contain.Guardian), and is no pool child.
     */
    public static List<Proc> childrenOf(int parent) {
        List<Proc> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path d : dirs) {
                Proc p = read(Integer.parseInt(d.getFileName().toString()));
                if (p != null && p.ppid() == parent && !p.comm().equals("vigil-guardian")) {
                    out.add(p);
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc: " + e, e);
        }
        return out;
    }

    /** The process, or null when it is gone. */
    public static Proc read(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            String[] rest = stat.substring(close + 2).split(" ");
            return new Proc(pid, Integer.parseInt(rest[1]), rest[0].charAt(0), stat.substring(open + 1, close));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** True while the process exists and is not a zombie. */
    public static boolean running(int pid) {
        Proc p = read(pid);
        return p != null && p.state() != 'Z' && p.state() != 'X';
    }

    /** Waits up to {@code millis} for this JVM to have no child process at all; returns what is left. */
    public static List<Proc> awaitNoChildren(long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        List<Proc> left = childrenOf(selfPid());
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            left = childrenOf(selfPid());
        }
        return left;
    }

    /** Waits (bounded) until no process has {@code text} in its command line. */
    public static void awaitNoneNaming(String text, long millis) throws Exception {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline) {
            boolean found = false;
            try (var procs = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc"), "[0-9]*")) {
                for (java.nio.file.Path proc : procs) {
                    try {
                        byte[] cmd = java.nio.file.Files.readAllBytes(proc.resolve("cmdline"));
                        if (new String(cmd, java.nio.charset.StandardCharsets.UTF_8).contains(text)) {
                            found = true;
                            break;
                        }
                    } catch (java.io.IOException gone) {
                        // exited while we looked
                    }
                }
            }
            if (!found) {
                return;
            }
            Thread.sleep(20);
        }
    }
}
