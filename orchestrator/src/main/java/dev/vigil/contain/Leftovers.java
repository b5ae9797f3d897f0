package dev.vigil.contain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What a dead orchestrator's containment left: its cgroup (every pool cgroup below it) or its published
 * process groups. The recovery kills it all, waits (bounded) until nothing is left, and removes the cgroups.
 */
public final class Leftovers {
    private Leftovers() {
    }

    /** Result of one sweep: what was killed and whether nothing is left. */
    public record Swept(List<ContainedProcess> killed, int containersRemoved, boolean empty) {
    }

    /** cgroup.kill of {@code root} (everything below it too), wait until empty, rmdir every cgroup below and root. */
    public static Swept killCgroupTree(Path root, long boundNanos) throws InterruptedException {
        if (!Files.isDirectory(root)) {
            return new Swept(List.of(), 0, true);
        }
        List<Path> dirs = cgroupsBelow(root);
        List<ContainedProcess> killed = new ArrayList<>();
        for (Path d : dirs) {
            for (int pid : CgroupPool.pids(d)) {
                killed.add(ProcFiles.describe(pid));
            }
        }
        CgroupPool.kill(root);
        boolean empty = CgroupPool.awaitEmpty(root, boundNanos);
        int removed = 0;
        if (empty) {
            dirs.sort(Comparator.comparingInt(Path::getNameCount).reversed());
            for (Path d : dirs) {
                try {
                    Files.deleteIfExists(d);
                    removed++;
                } catch (IOException ignored) {
                    // still busy: left for the next start
                }
            }
        }
        return new Swept(killed, removed, empty);
    }

    private static List<Path> cgroupsBelow(Path root) {
        try (Stream<Path> walk = Files.walk(root, 8)) {
            return new ArrayList<>(walk.filter(p -> Files.isDirectory(p) && Files.exists(p.resolve("cgroup.procs"))).toList());
        } catch (IOException e) {
            throw new ContainmentException("cgroup=" + root + " cannot be listed: " + e.getMessage(), e);
        }
    }

    /** SIGKILL to every group listed in {@code file} that still has a live member, wait until none has. */
    public static Swept killProcessGroups(Path file, long boundNanos) throws InterruptedException {
        if (!Files.exists(file)) {
            return new Swept(List.of(), 0, true);
        }
        ProcessGroupPool groups = new ProcessGroupPool(() -> { });
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
                if (!line.isBlank()) {
                    groups.childStarted(Integer.parseInt(line.trim()));
                }
            }
        } catch (IOException | NumberFormatException e) {
            throw new ContainmentException("process groups file=" + file + " unreadable: " + e.getMessage(), e);
        }
        List<ContainedProcess> killed = new ArrayList<>(groups.processes());
        killed.removeIf(ContainedProcess::isZombie);
        groups.signalEach(9);
        boolean empty = groups.awaitEmpty(boundNanos);
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // harmless: the groups are empty
        }
        return new Swept(killed, 0, empty);
    }

    /**
     * SIGKILL to a process that still maps {@code mapFile} (a child of a dead orchestrator holding its mailbox),
     * then wait until it is gone; true when it is gone (or never was there).
     */
    public static boolean killIfMapping(int pid, Path mapFile, long boundNanos) throws InterruptedException {
        if (pid <= 0 || !maps(pid, mapFile)) {
            return true;
        }
        dev.vigil.spawn.internal.Linux.calls().kill(pid, 9);
        long deadline = System.nanoTime() + boundNanos;
        while (ProcFiles.startTicks(pid) >= 0 && ProcFiles.state(pid) != 'Z') {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(2);
        }
        return true;
    }

    private static boolean maps(int pid, Path mapFile) {
        try (Stream<String> lines = Files.lines(Path.of("/proc", Integer.toString(pid), "maps"))) {
            String name = mapFile.toAbsolutePath().normalize().toString();
            return lines.anyMatch(l -> l.endsWith(name));
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }
}
