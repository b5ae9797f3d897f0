package dev.vigil.spawn;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** What /proc says about processes: the tests' view of leftovers, zombies and process groups. */
public final class ProcFs {
    /** One /proc/<pid>/stat line, the fields the tests need. */
    record Stat(int pid, String comm, char state, int ppid, int pgrp) {
    }

    private ProcFs() {
    }

    static Optional<Stat> stat(int pid) {
        try {
            String line = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
            // comm may hold spaces and parentheses: the fields after it start after the LAST ')'.
            int open = line.indexOf('(');
            int close = line.lastIndexOf(')');
            String[] rest = line.substring(close + 2).split(" ");
            return Optional.of(new Stat(pid, line.substring(open + 1, close), rest[0].charAt(0),
                    Integer.parseInt(rest[1]), Integer.parseInt(rest[2])));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Every process (zombies included) whose parent is {@code parent}. */
    static List<Stat> childrenOf(long parent) {
        List<Stat> children = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path dir : dirs) {
                stat(Integer.parseInt(dir.getFileName().toString()))
                        .filter(s -> s.ppid() == parent)
                        .ifPresent(children::add);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc", e);
        }
        return children;
    }

    /**
     * Waits (bounded, 10 s) until process {@code pid} ignores {@code signal}: its SigIgn mask in /proc/PID/status has
     * the bit. A test whose shell child runs {@code trap '' TERM} first must wait for it before closing: a SIGTERM
     * before the trap ends the shell at once.
     */
    public static void awaitIgnoring(int pid, int signal) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String mask = Files.readAllLines(Path.of("/proc", Integer.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("SigIgn:")).findFirst().orElseThrow().substring("SigIgn:".length()).trim();
            if ((Long.parseUnsignedLong(mask, 16) & (1L << (signal - 1))) != 0) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("pid " + pid + " did not come to ignore signal " + signal + " within 10 s");
    }

    /** Children of this JVM: none may be left (alive or zombie) after a test. */
    static List<Stat> ourChildren() {
        return childrenOf(ProcessHandle.current().pid());
    }

    /** Gone, or a zombie nobody of ours owns (reparented and killed, waiting for init to reap it). */
    static boolean goneOrDeadElsewhere(int pid) {
        Optional<Stat> stat = stat(pid);
        return stat.isEmpty() || (stat.get().state() == 'Z' && stat.get().ppid() != ProcessHandle.current().pid());
    }
}
