package dev.vigil.pool;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.bench.BenchSummary;
import dev.vigil.spawn.ChildProcess;
import dev.vigil.spawn.ExitStatus;
import dev.vigil.spawn.Redirect;
import dev.vigil.spawn.SpawnRequest;

/**
 * The close benchmark (docs/BENCHMARKS.md, "Close"; run by {@code bin/vigil-bench close}, which writes its section):
 * {@code Pool.closeWithReport()} of pools of real mailbox children (the C demo child; the Java child runtime with the
 * demo handler), idle or with one control command in flight per child, against {@code vigil-close-reference}, a C
 * program doing the same protocol work over the same children in one thread: the mailboxes in the layout of
 * {@code native/include/vigil/mailbox.h}, one command placed per child, then CAS of every shutdown word, pidfd poll,
 * the doorbell rung where a child sleeps on it (futex; a Java child's pipe too), waitpid, the command settled from
 * the mailbox, the ring drained, the mailbox released. Rounds alternate between the
 * two (order flipped every round), in the same run. Not a test.
 *
 * <p>Per close: whole close (first CAS to report returned; the reference: to its last release), slowest reap (from the
 * same start), close minus slowest reap (what the engine adds after the last exit: settle, release, report, journal
 * flush), CPU of the whole orchestrator process over the close (every thread: engine, reaper, drainer, journal, GC)
 * and of the engine thread alone; the reference's own CPU. The in-flight command is the demo handlers'
 * OP_COOPERATIVE_SLEEP (60 s, polling shutdown): it ends with result 1 on the shutdown, so the close settles it from
 * the mailbox (CommandCompleted) before the release.
 *
 * <pre>
 *   java @orchestrator/target/jvm.options -cp ... dev.vigil.pool.CloseBenchmark [quick]
 * </pre>
 */
public final class CloseBenchmark {
    private static final long IN_FLIGHT_MILLIS = 60_000;
    private static final long SETTLE_MILLIS = 20;
    private static final int WARM_UP_CLOSES = 200;

    /** One configuration: a child kind, a pool size, a command in flight or not, how many rounds. */
    record Config(String kind, int children, boolean inFlight, int rounds) {
        String label() {
            return String.format(Locale.ROOT, "%s x%d %s", kind, children, inFlight ? "in flight" : "idle");
        }
    }

    /** One close's figures, nanoseconds; closeId 0 for the reference. */
    record Sample(long close, long reap, long cpu, long engineCpu, long closeId) {
        long tail() {
            return close - reap;
        }
    }

    private CloseBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = args.length > 0 && args[0].equals("quick");
        List<Config> configs = new ArrayList<>();
        int[][] cSizes = quick ? new int[][] {{1, 6}, {16, 4}, {64, 2}, {256, 1}}
                : new int[][] {{1, 30}, {16, 20}, {64, 10}, {256, 4}};
        for (boolean inFlight : new boolean[] {false, true}) {
            for (int[] s : cSizes) {
                configs.add(new Config("C", s[0], inFlight, s[1]));
            }
            configs.add(new Config("Java", 1, inFlight, quick ? 3 : 8));
            configs.add(new Config("Java", 4, inFlight, quick ? 2 : 5));
        }
        Path work = Files.createTempDirectory(Path.of("/dev/shm"), "vigil-close-bench");
        try (Orchestrator o = Orchestrator.builder().journalDir(work.resolve("journal")).maxMailboxes(600)
                .closeSettings(CloseSettings.builder().window(Duration.ofSeconds(5)).build()).open()) {
            run(o, work, configs, System.out);
        }
    }

    static void run(Orchestrator o, Path work, List<Config> configs, PrintStream out) throws Exception {
        String loadBefore = load();
        long started = MonotonicClock.nanos();
        Map<Config, List<Sample>> vigil = new HashMap<>();
        Map<Config, List<Sample>> reference = new HashMap<>();
        int[] threads = {0};
        Map<String, Integer> threadNames = new TreeMap<>();
        // Warm-up: the first closes of a process run the close path in the interpreter (the JIT compiles a method
        // after some hundreds of calls, and most of the close path runs once per close): a long-running orchestrator
        // has it compiled. The first close is reported apart.
        Sample first = runRound(o, work, new Config("C", 1, true, 1), 0, null);
        for (int i = 1; i < WARM_UP_CLOSES; i++) {
            runRound(o, work, new Config("C", 1, i % 2 == 0, 1), i, null);
        }
        // JFR from here (the event classes load in the first close it sees, ~20 ms: not a measured one)
        ClosePhases phases = new ClosePhases(work.resolve("close.jfr"));
        // and one unmeasured round of each configuration, both sides: what runs once per child (the report's JSON of
        // n children, the per-child loops) is compiled for n children too, as in an orchestrator closing such pools
        for (Config c : configs) {
            runRound(o, work, c, WARM_UP_CLOSES, null);
            referenceRound(o, work, c);
        }
        for (Config c : configs) {
            for (int round = 0; round < c.rounds(); round++) {
                if (round % 2 == 0) {
                    vigil.computeIfAbsent(c, k -> new ArrayList<>()).add(runRound(o, work, c, round, threadNames));
                    reference.computeIfAbsent(c, k -> new ArrayList<>()).add(referenceRound(o, work, c));
                } else {
                    reference.computeIfAbsent(c, k -> new ArrayList<>()).add(referenceRound(o, work, c));
                    vigil.computeIfAbsent(c, k -> new ArrayList<>()).add(runRound(o, work, c, round, threadNames));
                }
            }
            threads[0] = Math.max(threads[0], ManagementFactory.getThreadMXBean().getThreadCount());
        }
        phases.stop();
        long took = MonotonicClock.nanos() - started;
        out.printf(Locale.ROOT, "Load (1/5/15 min) before: %s; after: %s. %d s. %d cores.%n%n", loadBefore, load(),
                took / 1_000_000_000L, Runtime.getRuntime().availableProcessors());
        out.println("| pool | rounds | vigil close median / p99 ms | C reference median / p99 ms | ratio (medians)"
                + " | vigil close - slowest reap median / p99 ms | reference close - slowest reap median ms"
                + " | vigil CPU per close ms (engine thread) | reference CPU ms |");
        out.println("|---|---|---|---|---|---|---|---|---|");
        for (Config c : configs) {
            List<Sample> v = vigil.get(c);
            List<Sample> r = reference.get(c);
            long vm = median(v, Sample::close);
            long rm = median(r, Sample::close);
            out.printf(Locale.ROOT, "| %s | %d | %.2f / %.2f | %.2f / %.2f | %.2fx | %.2f / %.2f | %.2f | %.2f (%.2f) | %.2f |%n",
                    c.label(), c.rounds(), ms(vm), ms(p99(v, Sample::close)), ms(rm), ms(p99(r, Sample::close)),
                    vm / (double) rm, ms(median(v, Sample::tail)), ms(p99(v, Sample::tail)), ms(median(r, Sample::tail)),
                    ms(median(v, Sample::cpu)), ms(median(v, Sample::engineCpu)), ms(median(r, Sample::cpu)));
        }
        List<Sample> idle = new ArrayList<>();
        for (Config c : configs) {
            if (!c.inFlight()) {
                idle.addAll(vigil.get(c));
            }
        }
        out.printf(Locale.ROOT, "%nIdle pools, every size and kind (%d closes): close minus slowest reap median %.2f ms,"
                + " p99 %.2f ms.%n", idle.size(), ms(median(idle, Sample::tail)), ms(p99(idle, Sample::tail)));
        long tailMedian = median(idle, Sample::tail);
        long tailP99 = p99(idle, Sample::tail);
        List<Sample> idleReference = new ArrayList<>();
        StringBuilder sizes = new StringBuilder();
        StringBuilder vigilMs = new StringBuilder();
        StringBuilder referenceMs = new StringBuilder();
        StringBuilder ratios = new StringBuilder();
        boolean within = true;
        for (Config c : configs) {
            if (c.inFlight()) {
                continue;
            }
            idleReference.addAll(reference.get(c));
            if (c.kind().equals("C")) {
                double r = median(vigil.get(c), Sample::close) / (double) median(reference.get(c), Sample::close);
                within &= r <= 1.25;
                String sep = sizes.length() == 0 ? "" : " / ";
                sizes.append(sep).append(c.children());
                vigilMs.append(sep).append(String.format(Locale.ROOT, "%.1f", ms(median(vigil.get(c), Sample::close))));
                referenceMs.append(sep).append(String.format(Locale.ROOT, "%.1f", ms(median(reference.get(c), Sample::close))));
                ratios.append(sep).append(BenchSummary.ratio(r));
            }
        }
        new BenchSummary("close minus slowest reap, idle pools (C 1-256, Java 1-4 children), median / p99",
                String.format(Locale.ROOT, "%.2f / %.2f ms", ms(tailMedian), ms(tailP99)),
                String.format(Locale.ROOT, "C reference %.2f ms (median)", ms(median(idleReference, Sample::tail))), "",
                "<= 2 ms / <= 10 ms on an idle machine", tailMedian <= 2_000_000 && tailP99 <= 10_000_000).print(out);
        new BenchSummary("whole close, idle C pools of " + sizes + " children (medians)", vigilMs + " ms",
                "C reference " + referenceMs + " ms", ratios.toString(), "<= 1.25x each on an idle machine", within)
                .print(out);
        out.printf(Locale.ROOT, "Before these, %d warm-up closes of C x1 pools (idle and in flight) and one round of"
                + " each configuration, not counted; the first close of the process (C x1 in flight, cold JIT): %.2f ms,"
                + " close minus slowest reap %.2f ms.%n",
                WARM_UP_CLOSES, ms(first.close()), ms(first.tail()));
        out.printf(Locale.ROOT, "Orchestrator threads: %d in the JVM at most (whatever the pool size; the JFR recording"
                + " of the phases below adds its own); Vigil's own, by name, seen during the closes: %s.%n", threads[0],
                String.join(", ", threadNames.keySet()));
        Map<String, List<Long>> byLabel = new java.util.LinkedHashMap<>();
        for (Config c : configs) {
            if (!c.inFlight()) {
                byLabel.put(c.label(), closeIds(vigil.get(c)));
            }
        }
        phases.print(out, byLabel, closeIds(idle), 10_000_000);
    }

    private static List<Long> closeIds(List<Sample> samples) {
        List<Long> ids = new ArrayList<>();
        for (Sample s : samples) {
            ids.add(s.closeId());
        }
        return ids;
    }

    /** One vigil close of a fresh pool; threadNames (when not null) collects the Vigil threads alive at the close. */
    private static Sample runRound(Orchestrator o, Path work, Config c, int round, Map<String, Integer> threadNames)
            throws Exception {
        Pool pool = Pool.builder(o, "bench-" + c.kind() + c.children() + "-" + round).childOutput(Redirect.DISCARD)
                .startTimeout(Duration.ofSeconds(120)).group("g", c.children(), spec(c)).start();
        if (c.inFlight()) {
            for (int i = 0; i < c.children(); i++) {
                pool.sendControl("g", i, DemoHandler.OP_COOPERATIVE_SLEEP, IN_FLIGHT_MILLIS);
            }
            Thread.sleep(SETTLE_MILLIS);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
                .getOperatingSystemMXBean();
        long engineCpu0 = engineCpu(mx);
        long cpu0 = os.getProcessCpuTime();
        long t0 = MonotonicClock.nanos();
        CloseReport report = pool.closeWithReport();
        long t1 = MonotonicClock.nanos();
        long cpu = os.getProcessCpuTime() - cpu0;
        long engine = engineCpu(mx) - engineCpu0;
        if (!report.isClean()) {
            throw new IllegalStateException("benchmark close not clean: " + report.toJson());
        }
        long lastReap = 0;
        for (PoolChild child : pool.children()) {
            lastReap = Math.max(lastReap, child.process().exitStatus().orElseThrow().reapedNanos());
        }
        if (threadNames != null) {
            for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
                if (info != null && info.getThreadName().startsWith("vigil")) {
                    threadNames.merge(info.getThreadName().replaceAll("-\\d+$", "-N"), 0, (a, b) -> a);
                }
            }
        }
        return new Sample(t1 - t0, lastReap - t0, cpu, engine, report.closeId());
    }

    private static ChildSpec spec(Config c) {
        return c.kind().equals("C") ? ChildSpec.cDemo() : ChildSpec.java(DemoHandler.class.getName());
    }

    private static long engineCpu(ThreadMXBean mx) {
        long sum = 0;
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null && info.getThreadName().startsWith("vigil-close-engine")) {
                sum += Math.max(0, mx.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    /** One close by vigil-close-reference over the same kind and number of children. */
    private static Sample referenceRound(Orchestrator o, Path work, Config c) throws Exception {
        Path output = work.resolve("reference.txt");
        List<String> argv = new ArrayList<>(List.of(o.nativeDir().resolve("vigil-close-reference").toString(),
                work.resolve("reference.map").toString(), Integer.toString(c.children()), c.inFlight() ? "1" : "0",
                c.kind().equals("Java") ? "1" : "0", // a Java child's doorbell is a pipe, as the orchestrator gives it
                Integer.toString(DemoHandler.OP_COOPERATIVE_SLEEP), Long.toString(IN_FLIGHT_MILLIS), "--"));
        argv.addAll(spec(c).argv(o.childRuntimes()));
        ChildProcess ref = o.spawner().spawn(SpawnRequest.of(argv).withStdout(Redirect.writeTo(output))
                .withStderr(Redirect.INHERIT));
        ExitStatus status = ref.onExit().get();
        List<String> lines = Files.readAllLines(output);
        Files.delete(output);
        if (status.exitCode() != 0) {
            throw new IllegalStateException("vigil-close-reference failed: " + status.describe() + " " + lines);
        }
        Map<String, Long> v = new HashMap<>();
        for (String line : lines) {
            String[] f = line.split(" ");
            if (f.length == 2) {
                v.put(f[0], Long.parseLong(f[1]));
            }
        }
        return new Sample(v.get("close_ns"), v.get("last_reap_ns"), v.get("cpu_ns"), 0, 0);
    }

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static long median(List<Sample> samples, java.util.function.ToLongFunction<Sample> f) {
        List<Long> s = sorted(samples, f);
        return s.get(s.size() / 2);
    }

    /** The 99th percentile (nearest rank): the largest value for fewer than 100 samples. */
    private static long p99(List<Sample> samples, java.util.function.ToLongFunction<Sample> f) {
        List<Long> s = sorted(samples, f);
        return s.get(Math.max(0, (int) Math.ceil(s.size() * 0.99) - 1));
    }

    private static List<Long> sorted(List<Sample> samples, java.util.function.ToLongFunction<Sample> f) {
        List<Long> s = new ArrayList<>();
        for (Sample x : samples) {
            s.add(f.applyAsLong(x));
        }
        Collections.sort(s);
        return s;
    }
}
