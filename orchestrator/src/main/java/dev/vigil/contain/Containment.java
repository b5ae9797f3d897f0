package dev.vigil.contain;

import dev.vigil.journal.JournalException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The containment of one orchestrator: with cgroups, its own directory {@code <parent>/o<pid>-<start
 * ticks>-<n>} (unique per orchestrator) with one sub-cgroup per pool; otherwise process groups.
 * {@link #open} decides once, and {@link #reason()} says why when it is the fallback.
 */
public final class Containment implements AutoCloseable {
    /** Orchestrators opened by this JVM: the n of {@code o<pid>-<start ticks>-<n>}. */
    private static final AtomicInteger OPENED = new AtomicInteger();

    private final ContainmentMode mode;
    private final Path root;
    private final String reason;
    private final List<PoolContainment> pools = new CopyOnWriteArrayList<>();
    private final AtomicInteger sequence = new AtomicInteger();
    private volatile Path processGroupsFile;

    private Containment(ContainmentMode mode, Path root, String reason) {
        this.mode = mode;
        this.root = root;
        this.reason = reason;
    }

    /**
     * Fallback only: the file that lists every followed process group (one pgid a line, rewritten by a
     * rename whenever a pool starts a child), for the guardian to kill them if this process dies.
     */
    public void publishProcessGroupsTo(Path file) {
        this.processGroupsFile = file;
        writeProcessGroups();
    }

    /** The file {@link #publishProcessGroupsTo} names, or null. */
    public Path processGroupsFile() {
        return processGroupsFile;
    }

    private synchronized void writeProcessGroups() {
        Path file = processGroupsFile;
        if (file == null) {
            return;
        }
        StringBuilder sb = new StringBuilder();
        for (PoolContainment p : pools) {
            if (p instanceof ProcessGroupPool g) {
                for (int pgid : g.groups()) {
                    sb.append(pgid).append('\n');
                }
            }
        }
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, sb.toString());
            Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new ContainmentException("process groups file=" + file + " cannot be written: " + e.getMessage(), e);
        }
    }

    /**
     * Chooses and sets up containment for this process.
     *
     * @throws ContainmentException when {@code cgroup} was requested and cannot be had (one line: path and why)
     */
    public static Containment open(ContainmentSettings settings) {
        if (settings.requested().equals(ContainmentSettings.PGROUP)) {
            return new Containment(ContainmentMode.PROCESS_GROUP, null, "chosen by configuration (vigil.containment=pgroup)");
        }
        Path parent = settings.parent();
        String problem = null;
        Path root = null;
        if (parent == null) {
            Path mount = CgroupMount.find();
            if (mount == null) {
                problem = "no cgroup2 file system in /proc/self/mountinfo";
            } else {
                parent = mount.resolve(CgroupMount.ownCgroup().replaceFirst("^/+", "")).resolve("vigil");
            }
        }
        if (problem == null) {
            ProcessIdentity self = ProcessIdentity.self();
            root = parent.resolve("o" + self.pid() + "-" + self.startTicks() + "-" + OPENED.incrementAndGet());
            problem = create(root);
            if (problem == null && !Files.exists(root.resolve("cgroup.kill"))) {
                problem = "cgroup=" + root + " has no cgroup.kill (needs Linux 5.14+)";
                remove(root);
            }
        }
        if (problem == null) {
            return new Containment(ContainmentMode.CGROUP, root, "cgroup v2");
        }
        if (settings.requested().equals(ContainmentSettings.CGROUP)) {
            throw new ContainmentException("cgroup containment unusable: " + problem
                    + " (delegate a writable cgroup v2 subtree, e.g. systemd Delegate=yes, and point vigil.cgroup.parent at it,"
                    + " or set vigil.containment=pgroup)");
        }
        return new Containment(ContainmentMode.PROCESS_GROUP, null, "cgroup v2 unusable: " + problem);
    }

    /** Null when the cgroup directory exists now; otherwise why it cannot be made. */
    private static String create(Path dir) {
        try {
            Files.createDirectories(dir);
            if (!Files.isRegularFile(dir.resolve("cgroup.procs"))) {
                remove(dir);
                return "path=" + dir + " is not in a cgroup v2 file system";
            }
            return null;
        } catch (IOException e) {
            return "path=" + dir + whyNot(e);
        }
    }

    /** Why a directory could not be made: the refusals a delegated subtree fixes named as such, else the system's words. */
    private static String whyNot(IOException e) {
        String reason = e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason() : "";
        if (e instanceof AccessDeniedException) {
            return " not writable (permission denied)";
        }
        if (reason.contains("Read-only file system")) {
            return " not writable (read-only file system)";
        }
        if (reason.contains("Operation not permitted")) {
            return " not writable (operation not permitted)";
        }
        return " cannot be created (" + JournalException.plain(e) + ")";
    }

    private static void remove(Path dir) {
        try {
            Files.deleteIfExists(dir);
        } catch (IOException ignored) {
            // populated or gone: left for the recovery
        }
    }

    public ContainmentMode mode() {
        return mode;
    }

    /** This orchestrator's cgroup directory; null in the fallback. */
    public Path root() {
        return root;
    }

    /** Why this mode: {@code cgroup v2}, or why the fallback was chosen. */
    public String reason() {
        return reason;
    }

    /** A new container for one pool (cgroup: {@code <root>/<pool id>-<n>}, created now). */
    public PoolContainment openPool(String poolId) {
        PoolContainment pool;
        if (mode == ContainmentMode.CGROUP) {
            Path dir = root.resolve(safeName(poolId) + "-" + sequence.incrementAndGet());
            String problem = create(dir);
            if (problem != null) {
                throw new ContainmentException("pool=" + poolId + " cgroup cannot be created: " + problem);
            }
            pool = new CgroupPool(dir, this::isPooled);
        } else {
            pool = new ProcessGroupPool(this::writeProcessGroups);
        }
        pools.add(pool);
        return pool;
    }

    /** True when {@code cgroup} is the cgroup of a pool opened and not yet forgotten, or below one. */
    private boolean isPooled(Path cgroup) {
        for (PoolContainment p : pools) {
            if (p.cgroup() != null && cgroup.startsWith(p.cgroup())) {
                return true;
            }
        }
        return false;
    }

    /** Pools opened and not yet forgotten. */
    public List<PoolContainment> pools() {
        return List.copyOf(pools);
    }

    /** Removes an emptied pool container; false (and it stays listed) while something is in it. */
    public boolean release(PoolContainment pool) {
        if (pool.remove()) {
            pools.remove(pool);
            return true;
        }
        return false;
    }

    /** Kills every pool container (SIGKILL, cgroup.kill in cgroup mode) and waits up to {@code nanos} for all to be empty. */
    public boolean killAll(long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        for (PoolContainment p : pools) {
            p.killAll();
        }
        boolean empty = true;
        for (PoolContainment p : pools) {
            empty &= p.awaitEmpty(Math.max(0, deadline - System.nanoTime()));
        }
        return empty;
    }

    /** Removes every empty pool container and, when none is left, this orchestrator's cgroup. */
    @Override
    public void close() {
        for (PoolContainment p : pools) {
            release(p);
        }
        if (root != null && pools.isEmpty()) {
            remove(root);
        }
        Path file = processGroupsFile;
        if (file != null && pools.isEmpty()) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException ignored) {
                // left for the next start
            }
        }
    }

    /** A pool id as a cgroup directory name: [A-Za-z0-9._-], others as '_', at most 64 characters. */
    static String safeName(String poolId) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < poolId.length() && sb.length() < 64; i++) {
            char c = poolId.charAt(i);
            sb.append(Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == '_' || c == '-' ? c : '_');
        }
        if (sb.length() == 0 || sb.charAt(0) == '.') {
            sb.insert(0, 'p');
        }
        return sb.toString();
    }
}
