package dev.vigil.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;

/**
 * {@code bin/vigil-bench scale}: one orchestrator, 10 pools, N children started, driven and closed all at once
 * (docs/BENCHMARKS.md, "A thousand children"). For each N: the wall time from the first launch until every pool is
 * ready (all pools started on 10 threads at once) and until the last child's shim was started (spawnedNanos, the clock
 * of System.nanoTime), one control round trip to every mailbox child, the close wall
 * (every pool closed at once), and the orchestrator's RSS, threads, open descriptors and mappings with all children
 * up. Mixes: "mixed" = per 10 pools 6 of C children, 3 of plain executables ({@code sleep}), 1 of C children with
 * {@code java} Java children in it; "c" = 10 pools of C children only.
 * Arguments: mix (mixed|c), sizes (10,100,1000), Java children at most (20), and a variant's label: its rows are
 * printed without a header, the label after the kinds (bin/vigil-bench runs the baselines so, each in its own JVM).
 */
public final class ScaleBench {
    static final int POOLS = 10;

    public static void main(String[] args) throws Exception {
        String mix = args.length > 0 ? args[0] : "mixed";
        String sizes = args.length > 1 ? args[1] : "10,100,1000";
        int javaMax = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        String variant = args.length > 3 ? args[3] : ""; // a variant's rows go under the table of the run before
        Path root = dev.vigil.journal.TestFiles.tempTreeDeletedAtExit("vigil-scale-bench");
        if (variant.isEmpty()) {
            System.out.printf(Locale.ROOT, "mix=%s, %d pools, %d cpus, %s, load before %s%n%n", mix, POOLS, Runtime.getRuntime().availableProcessors(),
                    openFileLimit(), load());
            System.out.println("| children | kinds | last shim started | start wall (launch to all ready) | orchestrator CPU in start | children CPU (lifetime, each) | control to all | close wall | orchestrator RSS | threads | fds | mappings | load |");
            System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
        }
        for (String size : sizes.split(",")) {
            int n = Integer.parseInt(size.trim());
            Figures f = run(mix, n, javaMax, root.resolve(mix + "-" + n));
            System.out.println((variant.isEmpty() ? f : f.withKinds(f.kinds() + "; " + variant)).row());
            summary(f);
        }
    }

    /**
     * The targets' summary rows: the run with {@value #RECORD} writes its start and close walls to that file; the
     * baseline's run with {@value #COMPARE} (the same file) prints the rows, its own walls as the baseline.
     */
    static final String RECORD = "vigil.bench.scale.record";
    static final String COMPARE = "vigil.bench.scale.compare";

    private static void summary(Figures f) throws IOException {
        String record = System.getProperty(RECORD);
        if (record != null) {
            Files.writeString(Path.of(record), f.startNanos() + " " + f.closeNanos() + " " + f.cleanPools() + "\n");
        }
        String compare = System.getProperty(COMPARE);
        if (compare == null) {
            return;
        }
        String[] now = Files.readString(Path.of(compare)).trim().split(" ");
        double start = Long.parseLong(now[0]) / 1e9;
        double close = Long.parseLong(now[1]) / 1e9;
        boolean clean = Integer.parseInt(now[2]) == POOLS;
        String baseline = " before (spawn batch 1, dynamic)";
        new dev.vigil.journal.bench.BenchSummary(f.children() + " C children: launch to all ready",
                String.format(Locale.ROOT, "%.2f s", start), String.format(Locale.ROOT, "%.2f s", f.startNanos() / 1e9) + baseline,
                dev.vigil.journal.bench.BenchSummary.ratio(start / (f.startNanos() / 1e9)), "<= 10 s on 2 cores", start <= 10).print(System.out);
        new dev.vigil.journal.bench.BenchSummary(f.children() + " C children: close of all at once",
                String.format(Locale.ROOT, "%.2f s", close) + (clean ? "" : " (not clean)"),
                String.format(Locale.ROOT, "%.2f s", f.closeNanos() / 1e9) + baseline,
                dev.vigil.journal.bench.BenchSummary.ratio(close / (f.closeNanos() / 1e9)), "<= 2 s, every pool clean",
                close <= 2 && clean).print(System.out);
    }

    /** What one size measured. */
    record Figures(int children, String kinds, long lastForkNanos, long startNanos, long startCpuNanos, long childCpuNanos, long driveNanos, long closeNanos, String rss, int threads, int fds,
            long mappings, int answered, int cleanPools, String load) {
        Figures withKinds(String k) {
            return new Figures(children, k, lastForkNanos, startNanos, startCpuNanos, childCpuNanos, driveNanos, closeNanos, rss, threads, fds,
                    mappings, answered, cleanPools, load);
        }

        String row() {
            return String.format(Locale.ROOT, "| %d | %s | %.2f s | %.2f s | %.2f s | %.2f ms | %.2f s | %.2f s | %s | %d | %d | %d | %s |", children,
                    kinds, lastForkNanos / 1e9, startNanos / 1e9, startCpuNanos / 1e9, childCpuNanos / 1e6 / children,
                    driveNanos / 1e9, closeNanos / 1e9, rss, threads, fds, mappings, load);
        }
    }

    static Figures run(String mix, int n, int javaMax, Path dir) throws Exception {
        int perPool = Math.max(1, n / POOLS);
        int java = mix.equals("mixed") ? Math.min(javaMax, perPool) : 0;
        int[] counts = new int[3]; // C, exec, Java
        ExecutorService threads = Executors.newFixedThreadPool(POOLS);
        try (Orchestrator o = Orchestrator.builder().journalDir(dir.resolve("journal")).maxMailboxes(n + 64)
                .closeSettings(CloseSettings.defaults()).open()) {
            List<Pool.Builder> builders = new ArrayList<>();
            for (int p = 0; p < POOLS; p++) {
                Pool.Builder b = Pool.builder(o, "scale-" + p).startTimeout(Duration.ofSeconds(300));
                if (mix.equals("mixed") && p >= 6 && p < 9) {
                    b.group("exec", perPool, ChildSpec.exec("sleep", "3600"));
                    counts[1] += perPool;
                } else if (mix.equals("mixed") && p == 9) {
                    if (perPool - java > 0) {
                        b.group("c", perPool - java, ChildSpec.cDemo());
                    }
                    b.group("java", java, ChildSpec.java(DemoHandler.class.getName()).withJvmOptions("-Xmx32m", "-Xss256k"));
                    counts[0] += perPool - java;
                    counts[2] += java;
                } else {
                    b.group("c", perPool, ChildSpec.cDemo());
                    counts[0] += perPool;
                }
                builders.add(b);
            }
            long[] cpu0 = cpu();
            long t0 = System.nanoTime();
            List<Future<Pool>> started = new ArrayList<>();
            for (Pool.Builder b : builders) {
                started.add(threads.submit(b::start));
            }
            List<Pool> pools = new ArrayList<>();
            for (Future<Pool> f : started) {
                pools.add(f.get());
            }
            long startWall = System.nanoTime() - t0;
            long startCpu = cpu()[0] - cpu0[0];
            long lastFork = pools.stream().flatMap(p -> p.children().stream()).mapToLong(c -> c.process().spawnedNanos()).max().orElse(t0) - t0;
            if (Long.getLong(HOLD, 0) > 0) {
                System.out.printf(Locale.ROOT, "start: %d children, ring drainer %.1f ms CPU in the start (%.2f s); threads: %s%n", n,
                        drainerCpuNanos() / 1e6, startWall / 1e9, threadCpu());
            }
            holdIdle(n);
            String rss = status("VmRSS");
            int threadCount = count("/proc/self/task");
            int fds = count("/proc/self/fd");
            long mappings = Files.lines(Path.of("/proc/self/maps")).count();
            long t1 = System.nanoTime();
            List<Future<Integer>> driven = new ArrayList<>();
            for (Pool pool : pools) {
                driven.add(threads.submit(() -> {
                    int k = 0;
                    for (PoolChild c : pool.children()) {
                        if (c.mailbox() != null) {
                            pool.control(c.group(), c.index(), DemoHandler.OP_ECHO, 5, Duration.ofSeconds(60));
                            k++;
                        }
                    }
                    return k;
                }));
            }
            int answered = 0;
            for (Future<Integer> f : driven) {
                answered += f.get();
            }
            long driveWall = System.nanoTime() - t1;
            String loadNow = load();
            long t2 = System.nanoTime();
            List<Future<Boolean>> closed = new ArrayList<>();
            for (Pool pool : pools) {
                closed.add(threads.submit(() -> {
                    try {
                        return pool.closeWithReport().isClean();
                    } catch (dev.vigil.close.CloseFailedException e) {
                        System.err.println("close not clean: pool=" + pool.poolId() + " " + e.getMessage().lines().findFirst().orElse(""));
                        return false;
                    }
                }));
            }
            int clean = 0;
            for (Future<Boolean> f : closed) {
                clean += f.get() ? 1 : 0;
            }
            long closeWall = System.nanoTime() - t2;
            long childCpu = cpu()[1] - cpu0[1]; // every child is reaped: its whole life, shim and exec included
            String kinds = counts[0] + " C, " + counts[1] + " exec, " + counts[2] + " Java" + (clean == POOLS ? "" : " (" + (POOLS - clean) + " pools NOT clean)");
            return new Figures(n, kinds, lastFork, startWall, startCpu, childCpu, driveWall, closeWall, rss, threadCount, fds, mappings, answered, clean, loadNow);
        } finally {
            threads.shutdownNow();
        }
    }

    static final String HOLD = "vigil.bench.scale.hold";

    /**
     * With -D{@value #HOLD}=SECONDS: keeps the started children idle that long and prints the CPU the ring drainer's
     * background thread used meanwhile (its /proc task stat), per second and per child per second.
     */
    static void holdIdle(int n) throws Exception {
        long seconds = Long.getLong(HOLD, 0);
        if (seconds <= 0) {
            return;
        }
        Thread.sleep(2_000); // the start's last records drained, the pass backed off
        long before = drainerCpuNanos();
        long t = System.nanoTime();
        Thread.sleep(seconds * 1000);
        double wall = (System.nanoTime() - t) / 1e9;
        long used = drainerCpuNanos() - before;
        System.out.printf(Locale.ROOT, "idle hold: %d children, %.1f s: ring drainer %.2f ms CPU a second, %.3f us a child a second%n",
                n, wall, used / 1e6 / wall, used / 1e3 / wall / n);
    }

    /** This process's threads' on-CPU time so far, summed by name with digits dropped, the largest first (ms). */
    static String threadCpu() throws IOException {
        java.util.Map<String, Long> byName = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(task.resolve("comm")).trim().replaceAll("[0-9]+", "#");
                    byName.merge(name, Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]), Long::sum);
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        }
        return byName.entrySet().stream().sorted(java.util.Map.Entry.<String, Long>comparingByValue().reversed()).limit(8)
                .map(e -> e.getKey() + " " + e.getValue() / 1_000_000).collect(java.util.stream.Collectors.joining(", "));
    }

    /** On-CPU time of this process's "vigil-ring-drai" task (its schedstat, nanoseconds); -1 when there is none. */
    static long drainerCpuNanos() throws IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                if (Files.readString(task.resolve("comm")).trim().startsWith("vigil-ring-drai")) {
                    return Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split(" ")[0]);
                }
            }
        }
        return -1;
    }

    /** {this process's utime + stime, its reaped children's cutime + cstime} in nanoseconds (/proc/self/stat, 100 Hz ticks). */
    static long[] cpu() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long tick = 10_000_000L;
        return new long[] {(Long.parseLong(f[11]) + Long.parseLong(f[12])) * tick, (Long.parseLong(f[13]) + Long.parseLong(f[14])) * tick};
    }

    private static String status(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field + ":")) {
                long kb = Long.parseLong(line.substring(field.length() + 1).trim().split("\\s+")[0]);
                return (kb / 1024) + " MB";
            }
        }
        return "?";
    }

    private static int count(String dir) throws IOException {
        try (var s = Files.list(Path.of(dir))) {
            return (int) s.count();
        }
    }

    private static String openFileLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String[] f = line.trim().split("\\s+");
                return "RLIMIT_NOFILE " + f[3] + "/" + f[4];
            }
        }
        return "RLIMIT_NOFILE ?";
    }

    private static String load() throws IOException {
        String[] l = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return l[0] + " " + l[1] + " " + l[2];
    }
}
