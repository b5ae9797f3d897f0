package dev.vigil.contain;

import java.nio.file.Path;
import java.util.List;

/**
 * What holds every process of one pool, its children and everything they fork: a cgroup (v2), or in
 * the fallback the children's process groups. The close pipeline asks it what is left, kills it as a
 * whole and waits (bounded) until it is empty.
 */
public interface PoolContainment {
    ContainmentMode mode();

    /** The cgroup directory the pool's children join before their exec; null in the process-group fallback. */
    Path cgroup();

    /** The container as the journal names it: the cgroup path, or {@code pgroup:<pgid>,...}. */
    String describe();

    /** A child of the pool runs (the fallback starts following its process group). */
    void childStarted(int pid);

    /** Every process in the container now (zombies included until their parent reaps them). */
    List<ContainedProcess> processes();

    /**
     * The pids in the container when listing them is cheap (cgroup: one read of {@code cgroup.procs}); null when it
     * is not (the process-group fallback scans /proc).
     */
    default List<Integer> pidsIfCheap() {
        return null;
    }

    /**
     * Of {@code live} (the pool's direct children not yet reaped), those found outside the container, each stopped
     * (SIGSTOP) with every process still tied to it (parentage, process group, an owned cgroup), for the caller to kill; empty when none left. Only a
     * cgroup can be left this way (by a write to another cgroup's {@code cgroup.procs}): the fallback has none.
     */
    default List<Escape> escapes(java.util.Collection<Integer> live) {
        return List.of();
    }

    /** Sends {@code signal} to every process in the container, one by one (a fork racing it may escape one signal). */
    void signalEach(int signal);

    /**
     * Kills the whole container with SIGKILL (cgroup: {@code cgroup.kill}, which no fork escapes; fallback: to
     * each process group) and returns the processes that were in it just before.
     */
    List<ContainedProcess> killAll();

    /** Waits up to {@code nanos} until no process is left; true when it is empty. */
    boolean awaitEmpty(long nanos) throws InterruptedException;

    /** True when no process is in it. */
    boolean isEmpty();

    /** Removes the container when it is empty (rmdir of the cgroup); false, and nothing done, while a process is in it. */
    boolean remove();
}
