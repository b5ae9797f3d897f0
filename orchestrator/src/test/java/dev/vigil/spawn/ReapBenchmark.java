package dev.vigil.spawn;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.bench.BenchSummary;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Exit-detection latency of Vigil's reapers against two C references over the same children
 * (docs/BENCHMARKS.md, "Reaping"). Not a test: run it by hand, on a machine as quiet as you can get.
 *
 * <p>Each child is vigil-exit-stamp: it sleeps until a fixed CLOCK_MONOTONIC time, stamps
 * CLOCK_MONOTONIC into a shared mapping and _exits. Latency = the reaper's collect time minus that
 * stamp. Rounds of every contender are interleaved, so machine noise hits all of them alike.
 *
 * <pre>
 *   java -cp ... dev.vigil.spawn.ReapBenchmark [rounds-factor, default 1]
 * </pre>
 */
public final class ReapBenchmark {
    /** One scenario: children, when the first exits (after the start of the round), spacing of exits. */
    record Scenario(String name, int children, long firstExitMillis, long spacingMicros, int rounds) {
    }

    /** What one contender measured over all rounds of a scenario. */
    static final class Measured {
        final List<Long> latencies = new ArrayList<>();
        long cpuNanos;
        long waitNanos;
        final List<Long> walls = new ArrayList<>();
    }

    private static final String VIGIL_PIDFD = "vigil pidfd+poll";
    private static final String VIGIL_WAITPID = "vigil waitpid fallback";
    private static final String REF_LOOP = "(a) C waitpid+1ms loop";
    private static final String REF_PIDFD = "(b) C pidfd+poll";

    private final Path nativeDir;
    private final Path stampDir;
    private final PrintStream out;

    ReapBenchmark(Path nativeDir, Path stampDir, PrintStream out) {
        this.nativeDir = nativeDir;
        this.stampDir = stampDir;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        int factor = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        Path shm = Path.of("/dev/shm");
        Path stampDir = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")), "vigil-reap-bench");
        try {
            new ReapBenchmark(SpawnerOptions.defaults().nativeDir(), stampDir, System.out).run(factor);
        } finally {
            try (var files = Files.list(stampDir)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(file);
                }
            }
            Files.deleteIfExists(stampDir);
        }
    }

    /** One contender's round: runs the scenario's children once and adds what it measured. */
    @FunctionalInterface
    interface Round {
        void run(Scenario scenario, Measured into) throws Exception;
    }

    void run(int factor) throws Exception {
        List<Scenario> scenarios = List.of(
                new Scenario("1 child", 1, 30, 0, 100 * factor),
                new Scenario("16 children, alive 1.4 s, 10 ms apart", 16, 1400, 10_000, 10 * factor),
                new Scenario("64 children, 0.2 ms apart", 64, 600, 200, 10 * factor));
        out.printf(Locale.ROOT, "reaping benchmark: cores=%d kernel=%s java=%s loadavg=%s%n", Runtime.getRuntime().availableProcessors(),
                System.getProperty("os.version"), System.getProperty("java.version"), loadAverage());
        try (Spawner pidfd = Spawner.start(new SpawnerOptions(nativeDir, ReapMode.PIDFD_POLL));
                Spawner fallback = Spawner.start(new SpawnerOptions(nativeDir, ReapMode.WAITPID_BACKOFF))) {
            Map<String, Round> contenders = new LinkedHashMap<>();
            contenders.put(VIGIL_PIDFD, (scenario, into) -> vigilRound(pidfd, scenario, into));
            contenders.put(VIGIL_WAITPID, (scenario, into) -> vigilRound(fallback, scenario, into));
            contenders.put(REF_LOOP, (scenario, into) -> referenceRound(pidfd, "waitpid", scenario, into));
            contenders.put(REF_PIDFD, (scenario, into) -> referenceRound(pidfd, "pidfd", scenario, into));
            // Warm-up: the spawn and reap paths get JIT-compiled before anything is measured.
            Scenario warmUp = new Scenario("warm-up", 64, 400, 100, 1);
            for (int i = 0; i < 8; i++) {
                vigilRound(pidfd, warmUp, new Measured());
                vigilRound(fallback, warmUp, new Measured());
            }
            for (Scenario scenario : scenarios) {
                Map<String, Measured> results = new LinkedHashMap<>();
                contenders.keySet().forEach(name -> results.put(name, new Measured()));
                List<String> order = new ArrayList<>(contenders.keySet());
                for (int round = 0; round < scenario.rounds(); round++) {
                    // Rotating the order spreads slow drifts of the machine's load over all contenders.
                    for (int i = 0; i < order.size(); i++) {
                        String name = order.get((round + i) % order.size());
                        contenders.get(name).run(scenario, results.get(name));
                    }
                }
                report(scenario, results);
                out.printf(Locale.ROOT, "loadavg=%s%n", loadAverage());
            }
        }
    }

    private void vigilRound(Spawner spawner, Scenario scenario, Measured into) throws IOException, ExecutionException, InterruptedException {
        long base = MonotonicClock.nanos() + TimeUnit.MILLISECONDS.toNanos(scenario.firstExitMillis());
        List<ChildProcess> children = new ArrayList<>(scenario.children());
        List<Path> stamps = new ArrayList<>(scenario.children());
        for (int i = 0; i < scenario.children(); i++) {
            Path stamp = stampDir.resolve("vigil-" + i + ".stamp");
            stamps.add(stamp);
            long exitAt = base + TimeUnit.MICROSECONDS.toNanos(scenario.spacingMicros()) * i;
            children.add(spawner.spawn(SpawnRequest.of(nativeDir.resolve("vigil-exit-stamp").toString(),
                    "@" + exitAt, stamp.toString()).discardingOutput()));
        }
        long cpuBefore = spawner.reaper().cpuTimeNanos();
        long waitStart = MonotonicClock.nanos();
        long firstStamp = Long.MAX_VALUE;
        long lastReap = 0;
        // One wake-up for the whole round: this thread must not compete with the reaper per exit.
        CompletableFuture.allOf(children.stream().map(ChildProcess::onExit).toArray(CompletableFuture[]::new)).get();
        List<ExitStatus> statuses = new ArrayList<>();
        for (ChildProcess child : children) {
            statuses.add(child.onExit().getNow(null));
        }
        into.waitNanos += MonotonicClock.nanos() - waitStart;
        into.cpuNanos += spawner.reaper().cpuTimeNanos() - cpuBefore;
        for (int i = 0; i < children.size(); i++) {
            ExitStatus status = statuses.get(i);
            if (status.exitCode() != 0) {
                throw new IllegalStateException("benchmark child failed: " + children.get(i) + " " + status.describe());
            }
            long stamp = readStamp(stamps.get(i));
            into.latencies.add(status.reapedNanos() - stamp);
            firstStamp = Math.min(firstStamp, stamp);
            lastReap = Math.max(lastReap, status.reapedNanos());
            Files.delete(stamps.get(i));
        }
        into.walls.add(lastReap - firstStamp);
    }

    /** Runs vigil-reap-reference (started through our own spawner) and takes its printed figures. */
    private void referenceRound(Spawner spawner, String mode, Scenario scenario, Measured into)
            throws IOException, ExecutionException, InterruptedException {
        Path output = stampDir.resolve("reference-" + mode + ".txt");
        ChildProcess reference = spawner.spawn(SpawnRequest.of(nativeDir.resolve("vigil-reap-reference").toString(), mode,
                        nativeDir.resolve("vigil-exit-stamp").toString(), stampDir.toString(), Integer.toString(scenario.children()),
                        Long.toString(scenario.firstExitMillis()), Long.toString(scenario.spacingMicros()))
                .withStdout(Redirect.writeTo(output)));
        ExitStatus status = reference.onExit().get();
        List<String> lines = Files.readAllLines(output);
        Files.delete(output);
        if (status.exitCode() != 0) {
            throw new IllegalStateException("reference mode=" + mode + " failed: " + status.describe() + " output=" + lines);
        }
        for (String line : lines) {
            String[] words = line.split(" ");
            switch (words[0]) {
                case "latency_ns": into.latencies.add(Long.parseLong(words[2])); break;
                case "cpu_ns": into.cpuNanos += Long.parseLong(words[1]); break;
                case "wait_ns": into.waitNanos += Long.parseLong(words[1]); break;
                case "wall_ns": into.walls.add(Long.parseLong(words[1])); break;
                default: throw new IllegalStateException("reference printed: " + line);
            }
        }
    }

    /** The machine's 1/5/15-minute load averages: the figures mean little when this exceeds the cores. */
    private static String loadAverage() throws IOException {
        String[] words = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return words[0] + "/" + words[1] + "/" + words[2];
    }

    private static long readStamp(Path file) throws IOException {
        long stamp = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.nativeOrder()).getLong(0);
        if (stamp == 0) {
            throw new IllegalStateException("child left no stamp: file=" + file);
        }
        return stamp;
    }

    private void report(Scenario scenario, Map<String, Measured> results) {
        out.printf(Locale.ROOT, "%n== %s (%d rounds, %d samples per contender)%n", scenario.name(), scenario.rounds(),
                results.get(VIGIL_PIDFD).latencies.size());
        out.printf(Locale.ROOT, "%-24s %10s %10s %10s %10s %12s %14s%n", "contender", "median ms", "p90 ms", "p99 ms", "max ms",
                "cpu % core", "wall ms (med)");
        for (Map.Entry<String, Measured> entry : results.entrySet()) {
            Measured m = entry.getValue();
            out.printf(Locale.ROOT, "%-24s %10.3f %10.3f %10.3f %10.3f %12.3f %14.3f%n", entry.getKey(),
                    millis(percentile(m.latencies, 50)), millis(percentile(m.latencies, 90)), millis(percentile(m.latencies, 99)), millis(percentile(m.latencies, 100)),
                    100.0 * m.cpuNanos / Math.max(1, m.waitNanos), millis(percentile(m.walls, 50)));
        }
        Measured vigil = results.get(VIGIL_PIDFD);
        Measured limit = results.get(REF_PIDFD);
        Measured loop = results.get(REF_LOOP);
        out.printf(Locale.ROOT, "vigil/(b): median %.2fx p99 %.2fx wall %.2fx (target <= 1.25x)   (a)/vigil at p99: %.2fx (target >= 2x)%n",
                ratio(vigil.latencies, limit.latencies, 50), ratio(vigil.latencies, limit.latencies, 99),
                ratio(vigil.walls, limit.walls, 50), ratio(loop.latencies, vigil.latencies, 99));
        double median = ratio(vigil.latencies, limit.latencies, 50);
        double p99 = ratio(vigil.latencies, limit.latencies, 99);
        double beatsLoop = ratio(loop.latencies, vigil.latencies, 99);
        new BenchSummary("reaping, " + scenario.name() + ": exit to delivery, median / p99",
                String.format(Locale.ROOT, "%.3f / %.3f ms", millis(percentile(vigil.latencies, 50)), millis(percentile(vigil.latencies, 99))),
                String.format(Locale.ROOT, "(b) C pidfd+poll %.3f / %.3f ms; (a) C waitpid loop p99 %.3f ms",
                        millis(percentile(limit.latencies, 50)), millis(percentile(limit.latencies, 99)), millis(percentile(loop.latencies, 99))),
                String.format(Locale.ROOT, "%s / %s of (b); (a)/Vigil p99 %s", BenchSummary.ratio(median), BenchSummary.ratio(p99),
                        BenchSummary.ratio(beatsLoop)),
                "<= 1.25x of (b); >= 2x better than (a) at p99", median <= 1.25 && p99 <= 1.25 && beatsLoop >= 2).print(out);
    }

    private static double ratio(List<Long> numerator, List<Long> denominator, int percentile) {
        return (double) percentile(numerator, percentile) / Math.max(1, percentile(denominator, percentile));
    }

    /** Nearest-rank percentile; 100 = the maximum. */
    static long percentile(List<Long> values, int percentile) {
        long[] sorted = values.stream().mapToLong(Long::longValue).sorted().toArray();
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(percentile / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double millis(long nanos) {
        return nanos / 1e6;
    }
}
