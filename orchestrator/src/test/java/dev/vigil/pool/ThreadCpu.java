package dev.vigil.pool;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time of each thread of this process, JVM threads included (GC, JIT compiler), from
 * {@code /proc/self/task/TID/schedstat} (nanoseconds on a CPU), named by {@code comm} with its trailing number
 * dropped ({@code vigil-close-en}, {@code GC Thread#}, {@code C2 CompilerThre}): CloseBenchmark's CPU per close by
 * thread; RingFlowControlBenchmark's time by thread, with each thread's time waiting for a CPU.
 */
public final class ThreadCpu {
    private ThreadCpu() {
    }

    /**
     * Nanoseconds on a CPU so far, by thread id; each value is {name, nanos on a CPU, nanos runnable but waiting for a CPU,
     * times it was given a CPU (its wake-ups and its returns from preemption)}. The calling thread's own figure is read
     * last ({@code selfLast}, before the measured work) or first (after it), so the reading itself is not counted.
     */
    public static Map<Integer, Object[]> snapshot(boolean selfLast) {
        Map<Integer, Object[]> out = new HashMap<>();
        Path self;
        String selfName;
        int selfTid;
        try {
            self = Path.of("/proc/thread-self").toRealPath();
            selfName = name(self);
            selfTid = Integer.parseInt(self.getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return out; // no /proc: nothing to report
        }
        if (!selfLast) {
            out.put(selfTid, new Object[] {selfName, selfOnCpu(), waiting(self), slices(self)}); // the first thing read after the measured work
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                int tid = Integer.parseInt(t.getFileName().toString());
                if (tid != selfTid) {
                    try {
                        out.put(tid, new Object[] {name(t), onCpu(t), waiting(t), slices(t)});
                    } catch (IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                }
            }
        } catch (IOException e) {
            return out;
        }
        if (selfLast) {
            out.put(selfTid, new Object[] {selfName, selfOnCpu(), waiting(self), slices(self)}); // the last thing read before the measured work
        }
        return out;
    }

    /**
     * The calling thread's own figure: its schedstat lags while it runs (the kernel adds the current slice at the next
     * switch or tick: ~1 ms of this class's own reading would be counted), its CPU clock does not.
     */
    private static long selfOnCpu() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static String name(Path task) throws IOException {
        return Files.readString(task.resolve("comm")).trim().replaceAll("[-#]?\\d+$", "");
    }

    /** Nanoseconds the task ({@code /proc/PID/task/TID}) spent on a CPU; -1 when unreadable. */
    public static long onCpu(Path task) {
        return schedstat(task, 0);
    }

    /** Nanoseconds the task was runnable but waited for a CPU (the scheduler's run-queue delay); -1 when unreadable. */
    public static long waiting(Path task) {
        return schedstat(task, 1);
    }

    /** How many times the task was given a CPU (schedstat's third field: wake-ups and returns from preemption); -1 when unreadable. */
    public static long slices(Path task) {
        return schedstat(task, 2);
    }

    private static long schedstat(Path task, int field) {
        try {
            return Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[field]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** CPU nanoseconds spent between two snapshots, summed by thread name (threads started meanwhile from 0). */
    public static Map<String, Long> between(Map<Integer, Object[]> before, Map<Integer, Object[]> after) {
        return between(before, after, 1);
    }

    /** Nanoseconds spent waiting for a CPU between two snapshots, summed by thread name. */
    public static Map<String, Long> waitingBetween(Map<Integer, Object[]> before, Map<Integer, Object[]> after) {
        return between(before, after, 2);
    }

    /** Times given a CPU between two snapshots, summed by thread name. */
    public static Map<String, Long> slicesBetween(Map<Integer, Object[]> before, Map<Integer, Object[]> after) {
        return between(before, after, 3);
    }

    private static Map<String, Long> between(Map<Integer, Object[]> before, Map<Integer, Object[]> after, int field) {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<Integer, Object[]> e : after.entrySet()) {
            Object[] b = before.get(e.getKey());
            long spent = (long) e.getValue()[field] - (b == null ? 0 : (long) b[field]);
            if (spent > 0 && (long) e.getValue()[field] >= 0 && (b == null || (long) b[field] >= 0)) {
                out.merge((String) e.getValue()[0], spent, Long::sum);
            }
        }
        return out;
    }
}
