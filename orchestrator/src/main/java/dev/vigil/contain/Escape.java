package dev.vigil.contain;

import java.util.List;

/**
 * A direct child of a pool found outside the pool's cgroup ({@link PoolContainment#escapes}): the cgroup it is in now
 * (a path under the cgroup mount) and the processes still tied to it ({@link CgroupPool#stopWithDescendants}). It and they are stopped (SIGSTOP) for the
 * caller to kill: stopped, none of them forks any more.
 */
public record Escape(int pid, String cgroup, List<Integer> descendants) {
    public Escape {
        descendants = List.copyOf(descendants);
    }
}
