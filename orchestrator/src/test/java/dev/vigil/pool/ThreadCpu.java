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
 * thread.
 */
final class ThreadCpu {
    private ThreadCpu() {
    }

    /**
     * Nanoseconds on a CPU so far, by thread id; each value is {name, nanos}. The calling thread's own figure is read
     * last ({@code selfLast}, before the measured work) or first (after it), so the reading itself is not counted.
     */
    static Map<Integer, Object[]> snapshot(boolean selfLast) {
        Map<Integer, Object[]> out = new HashMap<>();
        Path self = Path.of("/proc/thread-self");
        if (!selfLast) {
            read(self, out);
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            Path selfTask = self.toRealPath();
            for (Path t : tasks) {
                if (!t.toRealPath().equals(selfTask)) {
                    read(t, out);
                }
            }
        } catch (IOException e) {
            // no /proc: nothing to report
        }
        if (selfLast) {
            read(self, out);
        }
        return out;
    }

    private static void read(Path task, Map<Integer, Object[]> out) {
        try {
            String[] f = Files.readString(task.resolve("schedstat")).trim().split(" ");
            String name = Files.readString(task.resolve("comm")).trim().replaceAll("[-#]?\\d+$", "");
            out.put(Integer.parseInt(task.toRealPath().getFileName().toString()), new Object[] {name, Long.parseLong(f[0])});
        } catch (IOException | RuntimeException e) {
            // the thread ended meanwhile
        }
    }

    /** CPU nanoseconds spent between two snapshots, summed by thread name (threads started meanwhile from 0). */
    static Map<String, Long> between(Map<Integer, Object[]> before, Map<Integer, Object[]> after) {
        Map<String, Long> out = new TreeMap<>();
        for (Map.Entry<Integer, Object[]> e : after.entrySet()) {
            Object[] b = before.get(e.getKey());
            long spent = (long) e.getValue()[1] - (b == null ? 0 : (long) b[1]);
            if (spent > 0) {
                out.merge((String) e.getValue()[0], spent, Long::sum);
            }
        }
        return out;
    }
}
