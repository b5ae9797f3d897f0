package dev.vigil.contain;

import static dev.vigil.close.decision.EscalationStep.SIGKILL;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import dev.vigil.spawn.internal.Linux;

/**
 * The fallback container: the process groups the pool's children lead (the shim's setpgid). It sees and
 * kills only processes still in one of those groups: a descendant that called setsid or setpgid (a
 * daemon, {@code setsid cmd}) has left and is neither listed nor killed. Membership comes from a scan of
 * /proc; a group is forgotten once the scan finds nobody in it (an empty group cannot be joined again).
 */
final class ProcessGroupPool implements PoolContainment {
    private final Set<Integer> groups = ConcurrentHashMap.newKeySet();
    private final Runnable changed;

    ProcessGroupPool(Runnable changed) {
        this.changed = changed;
    }

    @Override
    public ContainmentMode mode() {
        return ContainmentMode.PROCESS_GROUP;
    }

    @Override
    public Path cgroup() {
        return null;
    }

    @Override
    public String describe() {
        return "pgroup:" + groups.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** The process groups followed now. */
    Set<Integer> groups() {
        return Set.copyOf(groups);
    }

    @Override
    public void childStarted(int pid) {
        groups.add(pid);
        changed.run();
    }

    @Override
    public List<ContainedProcess> processes() {
        List<ContainedProcess> out = new ArrayList<>();
        Set<Integer> seen = new java.util.HashSet<>();
        try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), p -> ProcFiles.isPid(p.getFileName().toString()))) {
            for (Path p : proc) {
                int pid = Integer.parseInt(p.getFileName().toString());
                int pgid = ProcFiles.processGroup(pid);
                if (pgid > 0 && groups.contains(pgid)) {
                    seen.add(pgid);
                    out.add(ProcFiles.describe(pid));
                }
            }
        } catch (IOException e) {
            throw new ContainmentException("/proc unreadable: " + e.getMessage(), e);
        }
        if (groups.retainAll(seen)) {
            changed.run();
        }
        return out;
    }

    @Override
    public void signalEach(int signal) {
        for (int pgid : groups) {
            Linux.calls().kill(-pgid, signal);
        }
    }

    @Override
    public List<ContainedProcess> killAll() {
        List<ContainedProcess> covered = processes();
        signalEach(SIGKILL);
        return covered;
    }

    @Override
    public boolean awaitEmpty(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long pause = TimeUnit.MILLISECONDS.toNanos(1);
        while (true) {
            if (isEmpty()) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.interrupted()) {
                throw new InterruptedException("waiting for process groups " + describe() + " to empty");
            }
            pause = Math.min(pause * 2, TimeUnit.MILLISECONDS.toNanos(10));
        }
    }

    /** No live process in the followed groups (zombies do not count: their parent reaps them). */
    @Override
    public boolean isEmpty() {
        for (ContainedProcess p : processes()) {
            if (!p.isZombie()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean remove() {
        return isEmpty();
    }

    @Override
    public String toString() {
        return describe();
    }
}
