package dev.vigil.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How many more processes this system can take, from its own limits: {@code kernel.pid_max},
 * {@code kernel.threads-max}, the soft {@code RLIMIT_NPROC} (less the tasks that exist now, from
 * {@code /proc/loadavg}), and the memory available ({@code MemAvailable}). A spec asking for more
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
        long cap = Math.min(pidMax, Math.min(threadsMax, nproc));
        long memory = memAvailable();
        String limits = String.format(Locale.ROOT, "pid_max=%d threads-max=%d max user processes=%s, %d tasks in use,"
                + " %d MiB available", pidMax, threadsMax, nproc == Long.MAX_VALUE ? "unlimited" : Long.toString(nproc), inUse,
                memory >> 20);
        return new ProcessRoom(Math.max(0, cap - inUse), memory, limits);
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
