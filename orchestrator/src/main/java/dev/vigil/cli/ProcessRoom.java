package dev.vigil.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How many more processes this system can take, from its own limits: {@code kernel.pid_max},
 * {@code kernel.threads-max} (less the tasks that exist now, from {@code /proc/loadavg}), the soft
 * {@code RLIMIT_NPROC} (less this user's tasks; not for root), and the memory available ({@code MemAvailable}). A spec asking for more
 * children than this is refused before anything is spawned.
 *
 * @param tasks        tasks (processes and threads) more that the limits allow
 * @param memoryBytes  memory available now
 * @param limits       the figures behind it, for the message
 */
public record ProcessRoom(long tasks, long memoryBytes, String limits) {
    /** Tasks a Java child takes (JVM threads: GC, compiler, signal, reference handler ...). */
    static final int JAVA_CHILD_TASKS = 20;
    /** Resident memory a Java child needs at the least. */
    static final long JAVA_CHILD_BYTES = 40L << 20;
    /** Resident memory a C or plain child needs at the least. */
    static final long NATIVE_CHILD_BYTES = 1L << 20;

    public static ProcessRoom current() {
        long pidMax = number(Path.of("/proc/sys/kernel/pid_max"), Long.MAX_VALUE);
        long threadsMax = number(Path.of("/proc/sys/kernel/threads-max"), Long.MAX_VALUE);
        long nproc = nprocSoftLimit();
        long inUse = tasksInUse();
        long uid = realUid();
        long[] userTasks = {-1};
        long room = tasksRoom(pidMax, threadsMax, nproc, inUse, uid, () -> userTasks[0] = userTasks(uid));
        long memory = memAvailable();
        String limits = String.format(Locale.ROOT, "pid_max=%d threads-max=%d max user processes=%s%s, %d tasks in use%s,"
                + " %d MiB available", pidMax, threadsMax, nproc == Long.MAX_VALUE ? "unlimited" : Long.toString(nproc),
                uid == 0 ? " (not binding for root)" : "", inUse,
                userTasks[0] < 0 ? "" : " (" + userTasks[0] + " of them this user's)", memory >> 20);
        return new ProcessRoom(room, memory, limits);
    }

    /**
     * Tasks more the system takes: {@code min(pid_max, threads-max)} less every task, and RLIMIT_NPROC less this real
     * user's tasks (what fork counts it against; root is not held to it). The user's tasks are counted (a scan of
     * /proc) only when that limit is the one that binds. Before, RLIMIT_NPROC was set against every task of the
     * system: 'nobody' under {@code ulimit -u 400}, with ~30 tasks of its own among 343, was refused 150 children
     * ("room for 57 more tasks"), and root under a low ulimit was refused a start fork would have allowed.
     */
    static long tasksRoom(long pidMax, long threadsMax, long nproc, long inUse, long realUid,
            java.util.function.LongSupplier userTasks) {
        long system = Math.max(0, Math.min(pidMax, threadsMax) - inUse);
        if (nproc == Long.MAX_VALUE || realUid == 0 || nproc - inUse >= system) {
            return system;
        }
        return Math.max(0, Math.min(system, nproc - userTasks.getAsLong()));
    }

    /** The real uid of this process (/proc/self/status), -1 when unknown. */
    private static long realUid() {
        return statusField(Path.of("/proc/self/status"), "Uid:");
    }

    /** Tasks (threads) of processes whose real uid is {@code uid}: what RLIMIT_NPROC counts. */
    private static long userTasks(long uid) {
        long n = 0;
        try (java.nio.file.DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"),
                p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path p : proc) {
                Path status = p.resolve("status");
                if (statusField(status, "Uid:") == uid) {
                    n += Math.max(1, statusField(status, "Threads:"));
                }
            }
        } catch (IOException e) {
            return 0;
        }
        return n;
    }

    /** The first number of line {@code key} in a /proc status file; -1 when absent or gone. */
    private static long statusField(Path status, String key) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith(key)) {
                    return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** Null when {@code nativeChildren} plain/C children and {@code javaChildren} JVMs fit; else why not. */
    public String whyNotRoomFor(long nativeChildren, long javaChildren) {
        long tasksNeeded = nativeChildren + javaChildren * JAVA_CHILD_TASKS;
        long bytesNeeded = nativeChildren * NATIVE_CHILD_BYTES + javaChildren * JAVA_CHILD_BYTES;
        if (tasksNeeded <= tasks && bytesNeeded <= memoryBytes) {
            return null;
        }
        return String.format(Locale.ROOT, "%d children in all need about %d tasks and %d MiB; this system has room for"
                + " %d more tasks and %d MiB (%s)", nativeChildren + javaChildren, tasksNeeded, bytesNeeded >> 20, tasks,
                memoryBytes >> 20, limits);
    }

    private static long number(Path p, long dflt) {
        try {
            // readAllLines, not readString: /proc files report size 0 and readString stops short on them
            return Long.parseLong(Files.readAllLines(p).get(0).trim());
        } catch (IOException | RuntimeException e) {
            return dflt;
        }
    }

    private static long nprocSoftLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max processes")) {
                    String soft = line.substring("Max processes".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: no bound from it
        }
        return Long.MAX_VALUE;
    }

    /** Scheduling entities that exist now: the denominator of /proc/loadavg's fourth field ("10/173"). */
    private static long tasksInUse() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/loadavg")).get(0).trim().split("\\s+");
            return Long.parseLong(f[3].substring(f[3].indexOf('/') + 1));
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long memAvailable() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemAvailable:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // unknown: no bound from it
        }
        return Long.MAX_VALUE;
    }
}
