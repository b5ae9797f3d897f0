package dev.vigil.contain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.vigil.spawn.internal.Linux;

/** A pool's cgroup (v2) directory: membership from cgroup.procs, emptiness from cgroup.events, cgroup.kill to end it. */
final class CgroupPool implements PoolContainment {
    private static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /** How long a pool's removal waits for a cgroup its escaped children went to to empty after their SIGKILL. */
    private static final long ESCAPE_EMPTY_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Path dir;
    /** True for a cgroup path that is a live pool's of this orchestrator, or below one. */
    private final java.util.function.Predicate<Path> pooled;
    /** Cgroups of this orchestrator's tree that are no pool's, where a child of this pool went: removed with it. */
    private final java.util.Set<Path> escapedTo = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /**
     * The cgroup.procs file, open from the first read until the cgroup is removed, read again from offset 0 each time
     * (the kernel lists the members afresh on a read at 0). Opening a cgroup file is most of a read's cost: ~60 us an
     * open, read and close of it, ~4-10 us a read of it kept open (20,000 reads each way, load 25); a close reads it
     * before any child is told (escapes), once per batch of exits (descendantsGone) and after the last reap (the
     * sweep). Guarded by this.
     */
    private java.nio.channels.FileChannel procs;
    private java.nio.ByteBuffer procsBuffer;
    /** Set once the cgroup is removed: a read after that goes the usual way (and finds no file). */
    private boolean removed;

    CgroupPool(Path dir, java.util.function.Predicate<Path> pooled) {
        this.dir = dir;
        this.pooled = pooled;
        try {
            pids(); // opened now, at the pool's start: not at its close's first read, before any child is told
        } catch (RuntimeException e) {
            // unreadable just after its mkdir: the first read of a close tries again and says why
        }
    }

    @Override
    public ContainmentMode mode() {
        return ContainmentMode.CGROUP;
    }

    @Override
    public Path cgroup() {
        return dir;
    }

    @Override
    public String describe() {
        return dir.toString();
    }

    @Override
    public void childStarted(int pid) {
        // the shim joined the cgroup before its exec: nothing to follow
    }

    @Override
    public List<ContainedProcess> processes() {
        List<ContainedProcess> out = new ArrayList<>();
        for (int pid : pids()) {
            out.add(ProcFiles.describe(pid));
        }
        return out;
    }

    @Override
    public List<Integer> pidsIfCheap() {
        return pids();
    }

    /** This cgroup's member pids, from cgroup.procs read through the descriptor kept open ({@link #procs}). */
    synchronized List<Integer> pids() {
        if (removed) {
            return pids(dir);
        }
        try {
            if (procs == null) {
                procs = java.nio.channels.FileChannel.open(dir.resolve("cgroup.procs"), StandardOpenOption.READ);
                procsBuffer = java.nio.ByteBuffer.allocate(16384);
            }
            java.nio.ByteBuffer b = procsBuffer;
            while (true) {
                b.clear();
                long at = 0;
                for (int n; b.hasRemaining() && (n = procs.read(b, at)) > 0; ) {
                    at += n;
                }
                if (b.hasRemaining()) {
                    break; // the end of the list
                }
                b = procsBuffer = java.nio.ByteBuffer.allocate(b.capacity() * 2); // more members: again from 0
            }
            return parse(dir, b.array(), b.position());
        } catch (NoSuchFileException e) {
            return new ArrayList<>();
        } catch (IOException e) {
            closeProcs();
            return pids(dir); // read the usual way: its failure says what is wrong
        }
    }

    /** Closes the kept cgroup.procs descriptor, if open. Guarded by this. */
    private void closeProcs() {
        if (procs != null) {
            try {
                procs.close();
            } catch (IOException ignored) {
                // a read-only descriptor of a cgroup file: nothing was written through it
            }
            procs = null;
            procsBuffer = null;
        }
    }

    static List<Integer> pids(Path dir) {
        List<Integer> out = new ArrayList<>();
        byte[] text;
        try {
            // the bytes, parsed in place (a close reads it once per batch of exits: no reader, decoder or line strings)
            text = Files.readAllBytes(dir.resolve("cgroup.procs"));
        } catch (NoSuchFileException e) {
            return out;
        } catch (IOException e) {
            throw new ContainmentException("cgroup=" + dir + " cgroup.procs unreadable: " + e.getMessage(), e);
        }
        return parse(dir, text, text.length);
    }

    /** The pids of cgroup.procs's first {@code length} bytes {@code text} (the bytes, parsed in place). */
    private static List<Integer> parse(Path dir, byte[] text, int length) {
        List<Integer> out = new ArrayList<>();
        int pid = -1;
        for (int i = 0; i < length; i++) {
            byte b = text[i];
            if (b >= '0' && b <= '9') {
                pid = (pid < 0 ? 0 : pid * 10) + (b - '0');
            } else if (b == '\n' || b == ' ') {
                if (pid >= 0) {
                    out.add(pid);
                }
                pid = -1;
            } else {
                throw new ContainmentException("cgroup=" + dir + " cgroup.procs unreadable: not a pid list: "
                        + new String(text, 0, length, StandardCharsets.US_ASCII).strip());
            }
        }
        if (pid >= 0) {
            out.add(pid);
        }
        return out;
    }

    /**
     * One read of cgroup.procs; a live pid not in it (a zombie is not listed: its state is checked) has its own
     * /proc/PID/cgroup read, and is an escape when that is neither this cgroup nor below it (a sub-cgroup it made is
     * still inside, and cgroup.kill still covers it). An escape into a cgroup of this orchestrator's own tree that is
     * no pool's (its directory, or one a child made there) takes every process of that cgroup with it: only the pools'
     * children are ever written into that tree, so all of them are its offspring, whatever they forked.
     */
    @Override
    public List<Escape> escapes(java.util.Collection<Integer> live) {
        java.util.Set<Integer> here = new java.util.HashSet<>(pids());
        List<Escape> out = new ArrayList<>();
        Path mount = null;
        for (int pid : live) {
            if (here.contains(pid)) {
                continue;
            }
            String now = ProcFiles.cgroup(pid);
            if (now == null || ProcFiles.state(pid) == 'Z') {
                continue; // gone, or dead and not reaped yet (the kernel took it out of its cgroup)
            }
            mount = mount != null ? mount : CgroupMount.find();
            Path nowDir = mount == null ? null : mount.resolve(now.replaceFirst("^/+", ""));
            if (nowDir != null && nowDir.startsWith(dir)) {
                continue;
            }
            Path tree = dir.getParent();
            Path owned = nowDir != null && tree != null && nowDir.startsWith(tree) && !pooled.test(nowDir) ? nowDir : null;
            if (owned != null && !owned.equals(tree)) {
                escapedTo.add(owned);
            }
            out.add(new Escape(pid, nowDir == null ? now : nowDir.toString(), stopWithDescendants(pid,
                    owned == null ? () -> List.of() : () -> members(owned, !owned.equals(tree)))));
        }
        return out;
    }

    /** The pids in cgroup {@code at}, and in every cgroup below it when {@code below}; none when it is gone. */
    private static List<Integer> members(Path at, boolean below) {
        if (!below) {
            return pids(at);
        }
        List<Integer> out = new ArrayList<>();
        try (java.util.stream.Stream<Path> dirs = Files.walk(at)) {
            for (Path d : (Iterable<Path>) dirs.filter(Files::isDirectory)::iterator) {
                out.addAll(pids(d));
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // gone meanwhile: what was read is what there is
        }
        return out;
    }

    /**
     * SIGSTOPs {@code pid}, then every process that the kernel still ties to it: below it by parentage; in a process
     * group that it or one found leads (the shim made the child a group leader: a group is joined only from within its
     * session and its id stays taken while it has a member, so a double fork that kept its group is found though its
     * parent is now a reaper); or in {@code alsoMembers} (the cgroup it went to, when all of that is its). Scan after
     * scan of /proc until one finds none new (a fork racing a stop shows up in the next scan; stopped, nothing forks
     * again), at most 16 scans. Returns the others stopped. What left both its parentage and its group (setsid, then
     * its parent's exit: a daemon) keeps no tie to {@code pid} that the kernel shows.
     */
    static List<Integer> stopWithDescendants(int pid, java.util.function.Supplier<List<Integer>> alsoMembers) {
        // SIGSTOP cannot be caught, and a stopped process does not fork; read here, not at a pool's open (its class
        // loads jnr-constants' platform tables)
        int sigstop = jnr.constants.platform.Signal.SIGSTOP.intValue();
        Linux.calls().kill(pid, sigstop);
        java.util.Set<Integer> stopped = new java.util.LinkedHashSet<>();
        java.util.Set<Integer> leaders = new java.util.HashSet<>(List.of(pid));
        for (int scan = 0; scan < 16; scan++) {
            java.util.Map<Integer, ProcFiles.Lineage> lineages = ProcFiles.lineages();
            java.util.Set<Integer> members = new java.util.HashSet<>(alsoMembers.get());
            boolean found = false;
            for (java.util.Map.Entry<Integer, ProcFiles.Lineage> e : lineages.entrySet()) {
                int p = e.getKey();
                if (p != pid && !stopped.contains(p) && (members.contains(p) || leaders.contains(e.getValue().group())
                        || below(p, pid, lineages))) {
                    Linux.calls().kill(p, sigstop);
                    stopped.add(p);
                    leaders.add(p);
                    found = true;
                }
            }
            if (!found) {
                break;
            }
        }
        return new ArrayList<>(stopped);
    }

    /** True when an ancestor of {@code p} (64 generations at most) is {@code root}. */
    private static boolean below(int p, int root, java.util.Map<Integer, ProcFiles.Lineage> lineages) {
        ProcFiles.Lineage up = lineages.get(p);
        for (int depth = 0; depth < 64 && up != null && up.parent() > 1; depth++) {
            if (up.parent() == root) {
                return true;
            }
            up = lineages.get(up.parent());
        }
        return false;
    }

    @Override
    public void signalEach(int signal) {
        for (int pid : pids()) {
            Linux.calls().kill(pid, signal); // ESRCH: it went meanwhile
        }
    }

    @Override
    public List<ContainedProcess> killAll() {
        List<ContainedProcess> covered = processes();
        kill(dir);
        return covered;
    }

    /** Writes 1 to DIR/cgroup.kill (Linux 5.14+): SIGKILL to every process in the cgroup and its descendants, forks included. */
    static void kill(Path dir) {
        try {
            Files.writeString(dir.resolve("cgroup.kill"), "1", StandardCharsets.US_ASCII, StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            if (Files.isDirectory(dir)) {
                throw new ContainmentException("cgroup=" + dir + " has no cgroup.kill (needs Linux 5.14+)", e);
            }
        } catch (IOException e) {
            throw new ContainmentException("cgroup=" + dir + " cgroup.kill failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean awaitEmpty(long nanos) throws InterruptedException {
        return awaitEmpty(dir, nanos);
    }

    /** Polls DIR/cgroup.events until it says {@code populated 0}, pausing 50 us doubling to 5 ms; bounded by {@code nanos}. */
    static boolean awaitEmpty(Path dir, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long pause = TimeUnit.MICROSECONDS.toNanos(50);
        while (true) {
            if (!populated(dir)) {
                return true;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(Math.min(pause, left));
            if (Thread.interrupted()) {
                throw new InterruptedException("waiting for cgroup=" + dir + " to empty");
            }
            pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
        }
    }

    /** cgroup.events {@code populated 1}: a process is in the cgroup or below it. A missing cgroup is empty. */
    static boolean populated(Path dir) {
        try {
            for (String line : Files.readAllLines(dir.resolve("cgroup.events"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("populated ")) {
                    return !line.endsWith(" 0");
                }
            }
            return false;
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new ContainmentException("cgroup=" + dir + " cgroup.events unreadable: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean isEmpty() {
        return !populated(dir);
    }

    @Override
    public boolean remove() {
        synchronized (this) {
            closeProcs(); // before the rmdir (a read after a failed one opens it again)
        }
        for (Path escape : escapedTo) {
            try {
                awaitEmpty(escape, ESCAPE_EMPTY_NANOS); // what the close SIGKILLed there may still be exiting
                Files.deleteIfExists(escape);
                escapedTo.remove(escape);
            } catch (IOException e) {
                // still populated: the orchestrator's cgroup stays until it is empty
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        try {
            Files.deleteIfExists(dir);
            synchronized (this) {
                removed = true;
                closeProcs(); // if a read opened it meanwhile
            }
            return true;
        } catch (IOException e) {
            return false; // EBUSY: still populated
        }
    }

    @Override
    public String toString() {
        return "cgroup " + dir;
    }
}
