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
 * the mailbox, the ring drained, the mailbox released; and against the same reference doing the rest of a close's work
 * too ({@link #SAME_WORK}: its children in a cgroup of their own, every event journaled into a mapped file, the cgroup
 * read before releases and swept after the last reap, the report as JSON, the cgroup removed; timed from its first
 * record). Rounds rotate between the three (order rotated every round), in the same run. Not a test.
 *
 * <p>Per close: whole close (first CAS to report returned; the reference: to its last release), slowest reap (from the
 * same start), close minus slowest reap (what the engine adds after the last exit: settle, release, report, journal
 * flush), CPU of the whole orchestrator process over the close (every thread: engine, reaper, drainer, journal, GC,
 * JIT; from schedstat, {@link ThreadCpu}), by thread, and of the engine thread alone; the reference's own CPU. The in-flight command is the demo handlers'
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
    /**
     * Unmeasured rounds of Vigil's side of each C configuration before its measured ones
     * ({@code -Dvigil.bench.close.warmUpRounds}). Two were too few: in a run of C x64 pools alone at 19:30 UTC
     * 2026-12-03 (load 6-15) the JIT's compiler threads still took 34 ms of CPU in each measured close after 2 such
     * rounds (the close 3.18x the reference), 15 ms after 10 (1.78x): compiles an orchestrator that has closed such
     * pools before has long finished, taken from the exiting children's cores. What is left is in the table of CPU by
     * thread (its C1/C2 rows).
     */
    private static final int WARM_UP_ROUNDS = Integer.getInteger("vigil.bench.close.warmUpRounds", 10);
    /**
     * After those, more unmeasured rounds of the same C configuration until the JIT is quiet in its closes: its compiler
     * threads took under {@link #JIT_QUIET_SHARE} of the close's own time (or {@link #JIT_QUIET_FLOOR_NANOS}) in each of
     * the last {@link #JIT_QUIET_ROUNDS} closes, at most {@link #WARM_UP_BOUND_NANOS} of rounds per configuration
     * ({@code -Dvigil.bench.close.jitQuiet=false}: the fixed rounds only). Ten rounds were not enough: in a run of C x64 pools alone at 22:15 UTC 2026-12-03 (load
     * 9-10) the compiler threads still took 18.6 ms of CPU in each measured close (C1 5.8, C2 12.8; 471 compiles, 284 of
     * them tier 3, during its 10 measured rounds), in a quiet full run 7.5 ms (C x64): methods that run once per child
     * reach C2's thresholds (thousands of calls) only after hundreds of closes, and the compile queue drains more slowly
     * on a loaded machine. With this warm-up, alternating with the fixed ten rounds (C x16, 22:18-22:23 UTC, load 7-12):
     * the compiler threads' CPU per measured close 0.0 / 0.6 ms against 6.1 / 8.3 ms, the engine thread's 3.3 / 3.7 ms
     * against 4.9 / 4.8 ms. An orchestrator that has closed such pools before has finished those compiles; the first
     * close of the process is still reported apart, and what the JIT still takes in the measured closes stays on the
     * C1/C2 rows.
     */
    private static final boolean JIT_QUIET = Boolean.parseBoolean(System.getProperty("vigil.bench.close.jitQuiet", "true"));
    private static final double JIT_QUIET_SHARE = 0.02;
    /** The JIT counts as quiet under this too (2 % of a 1-child close of ~1 ms would be one short compile). */
    private static final long JIT_QUIET_FLOOR_NANOS = 100_000;
    private static final int JIT_QUIET_ROUNDS = 3;
    private static final long WARM_UP_BOUND_NANOS = 30_000_000_000L;
    /** The same for the Java child configurations and for the C references: each child JVM costs ~0.5 s of CPU. */
    private static final int FEW_WARM_UP_ROUNDS = Math.min(2, WARM_UP_ROUNDS);
    /** What the "same work" reference adds to the protocol (vigil-close-reference's VIGIL_REF_* variables). */
    private static final String SAME_WORK = "cgroup per pool, journal, sweep, report";

    /** One configuration: a child kind, a pool size, a command in flight or not, how many rounds. */
    record Config(String kind, int children, boolean inFlight, int rounds) {
        String label() {
            return String.format(Locale.ROOT, "%s x%d %s", kind, children, inFlight ? "in flight" : "idle");
        }
    }

    /** One close's figures, nanoseconds; closeId 0 for the reference. */
    record Sample(long close, long reap, long cpu, long engineCpu, long closeId, Map<String, Long> threads, long told) {
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
        // e.g. "C x256 idle", or a comma-separated list ("C x1 idle,C x16 idle"): only those configurations, for study
        String only = System.getProperty("vigil.bench.close.only");
        if (only != null) {
            List<String> labels = List.of(only.split(","));
            configs.removeIf(c -> !labels.contains(c.label()));
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
        Map<Config, List<Sample>> sameWork = new HashMap<>();
        int[] threads = {0};
        Map<String, Integer> threadNames = new TreeMap<>();
        // Warm-up: the first closes of a process run the close path in the interpreter (the JIT compiles a method
        // after some hundreds of calls, and most of the close path runs once per close): a long-running orchestrator
        // has it compiled. The first close is reported apart.
        Sample first = runRound(o, work, new Config("C", 1, true, 1), 0, null);
        // JFR from here, before the other warm-up closes: starting a recording in a running JVM deoptimizes its compiled
        // code (a JVMTI state change: 3,746 methods made not entrant at once in a run of 22:15 UTC 2026-12-03), so started
        // after them it threw their warm-up away and the JIT recompiled the close path during the measured rounds. After
        // the first close, which is reported cold without it; its event classes load in the next, not a measured one.
        ClosePhases phases = new ClosePhases(work.resolve("close.jfr"));
        for (int i = 1; i < WARM_UP_CLOSES; i++) {
            runRound(o, work, new Config("C", 1, i % 2 == 0, 1), i, null);
        }
        // and unmeasured rounds of each configuration, every side: what runs once per child (the per-child loops, the
        // report's JSON of n children) is compiled for n children too, as in an orchestrator that has closed such pools
        // before (after one such round the JIT's compiler threads still took 20-70 ms of CPU in each 256-child close,
        // against the exiting children on the same cores; the table of CPU by thread below says what is left)
        Map<Config, String> warmUps = new java.util.LinkedHashMap<>();
        for (Config c : configs) {
            boolean cKind = c.kind().equals("C");
            int vigilRounds = cKind ? WARM_UP_ROUNDS : FEW_WARM_UP_ROUNDS;
            long warmUpStart = MonotonicClock.nanos();
            int quiet = 0;
            int round = 0;
            for (;; round++) {
                boolean fixed = round < vigilRounds;
                if (!fixed && (!cKind || !JIT_QUIET || quiet >= JIT_QUIET_ROUNDS
                        || MonotonicClock.nanos() - warmUpStart > WARM_UP_BOUND_NANOS)) {
                    break;
                }
                Sample s = runRound(o, work, c, WARM_UP_CLOSES + round, null);
                quiet = jitCpu(s) < Math.max(JIT_QUIET_FLOOR_NANOS, s.close() * JIT_QUIET_SHARE) ? quiet + 1 : 0;
                if (round < FEW_WARM_UP_ROUNDS) {
                    referenceRound(o, work, c, false);
                    referenceRound(o, work, c, true);
                }
            }
            if (cKind) {
                warmUps.put(c, round + (quiet >= JIT_QUIET_ROUNDS || !JIT_QUIET ? "" : " (bound)"));
            }
        }
        for (Config c : configs) {
            for (int round = 0; round < c.rounds(); round++) {
                // the three sides in turn, the order rotated every round
                for (int side = 0; side < 3; side++) {
                    switch ((round + side) % 3) {
                        case 0 -> vigil.computeIfAbsent(c, k -> new ArrayList<>()).add(runRound(o, work, c, round,
                                threadNames));
                        case 1 -> reference.computeIfAbsent(c, k -> new ArrayList<>()).add(referenceRound(o, work, c,
                                false));
                        default -> sameWork.computeIfAbsent(c, k -> new ArrayList<>()).add(referenceRound(o, work, c,
                                true));
                    }
                }
            }
            threads[0] = Math.max(threads[0], ManagementFactory.getThreadMXBean().getThreadCount());
        }
        phases.stop();
        long took = MonotonicClock.nanos() - started;
        out.printf(Locale.ROOT, "Load (1/5/15 min) before: %s; after: %s. %d s. %d cores.%n%n", loadBefore, load(),
                took / 1_000_000_000L, Runtime.getRuntime().availableProcessors());
        out.println("| pool | rounds | vigil close median / p99 ms | C reference median / p99 ms | ratio (medians)"
                + " | C reference, same work, median / p99 ms | ratio (medians) | vigil close - slowest reap median / p99 ms"
                + " | reference close - slowest reap median ms (same work) | vigil CPU per close ms (engine thread)"
                + " | reference CPU ms (same work) |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        for (Config c : configs) {
            List<Sample> v = vigil.get(c);
            List<Sample> r = reference.get(c);
            List<Sample> w = sameWork.get(c);
            long vm = median(v, Sample::close);
            long rm = median(r, Sample::close);
            long wm = median(w, Sample::close);
            out.printf(Locale.ROOT, "| %s | %d | %.2f / %.2f | %.2f / %.2f | %.2fx | %.2f / %.2f | %.2fx | %.2f / %.2f"
                    + " | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) |%n",
                    c.label(), c.rounds(), ms(vm), ms(p99(v, Sample::close)), ms(rm), ms(p99(r, Sample::close)),
                    vm / (double) rm, ms(wm), ms(p99(w, Sample::close)), vm / (double) wm, ms(median(v, Sample::tail)),
                    ms(p99(v, Sample::tail)), ms(median(r, Sample::tail)), ms(median(w, Sample::tail)),
                    ms(median(v, Sample::cpu)), ms(median(v, Sample::engineCpu)), ms(median(r, Sample::cpu)),
                    ms(median(w, Sample::cpu)));
        }
        List<Sample> idle = new ArrayList<>();
        for (Config c : configs) {
            if (!c.inFlight()) {
                idle.addAll(vigil.get(c));
            }
        }
        if (o.containment().mode() != dev.vigil.contain.ContainmentMode.CGROUP) {
            out.printf("%nNo cgroup for pools here (containment %s): the same-work reference journals, reports and"
                    + " releases, its children in no cgroup, as Vigil's.%n", o.containment().mode());
        }
        printThreadCpu(out, configs, vigil);
        StringBuilder told = new StringBuilder();
        for (Config c : configs) {
            if (!c.inFlight()) {
                told.append(told.length() == 0 ? "" : ", ").append(c.label()).append(String.format(Locale.ROOT,
                        " %.2f", ms(median(reference.get(c), Sample::told))));
            }
        }
        out.printf(Locale.ROOT, "%nThe C reference's CAS and doorbell loop (first CAS to the last child told; compare the"
                + " phase table's \"tell each\" row), median ms: %s.%n", told);
        out.printf(Locale.ROOT, "%nIdle pools, every size and kind (%d closes): close minus slowest reap median %.2f ms,"
                + " p99 %.2f ms.%n", idle.size(), ms(median(idle, Sample::tail)), ms(p99(idle, Sample::tail)));
        long tailMedian = median(idle, Sample::tail);
        long tailP99 = p99(idle, Sample::tail);
        List<Sample> idleReference = new ArrayList<>();
        StringBuilder sizes = new StringBuilder();
        StringBuilder vigilMs = new StringBuilder();
        StringBuilder referenceMs = new StringBuilder();
        StringBuilder ratios = new StringBuilder();
        StringBuilder sameWorkMs = new StringBuilder();
        StringBuilder sameWorkRatios = new StringBuilder();
        boolean within = true;
        boolean withinSameWork = true;
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
                double rw = median(vigil.get(c), Sample::close) / (double) median(sameWork.get(c), Sample::close);
                withinSameWork &= rw <= 1.25;
                sameWorkMs.append(sep).append(String.format(Locale.ROOT, "%.1f", ms(median(sameWork.get(c),
                        Sample::close))));
                sameWorkRatios.append(sep).append(BenchSummary.ratio(rw));
            }
        }
        new BenchSummary("close minus slowest reap, idle pools (C 1-256, Java 1-4 children), median / p99",
                String.format(Locale.ROOT, "%.2f / %.2f ms", ms(tailMedian), ms(tailP99)),
                String.format(Locale.ROOT, "C reference %.2f ms (median)", ms(median(idleReference, Sample::tail))), "",
                "<= 2 ms / <= 10 ms on an idle machine", tailMedian <= 2_000_000 && tailP99 <= 10_000_000).print(out);
        new BenchSummary("whole close, idle C pools of " + sizes + " children (medians)", vigilMs + " ms",
                "C reference " + referenceMs + " ms", ratios.toString(), "<= 1.25x each on an idle machine", within)
                .print(out);
        new BenchSummary("whole close, idle C pools of " + sizes + " children (medians), against a C reference doing the"
                + " same work (" + SAME_WORK + ")", vigilMs + " ms", "C reference, same work " + sameWorkMs + " ms",
                sameWorkRatios.toString(), "<= 1.25x each on an idle machine", withinSameWork).print(out);
        StringBuilder warmUpRounds = new StringBuilder();
        warmUps.forEach((c, n) -> warmUpRounds.append(warmUpRounds.length() == 0 ? "" : ", ").append(c.label())
                .append(' ').append(n));
        out.printf(Locale.ROOT, "Before these, %d warm-up closes of C x1 pools (idle and in flight) and unmeasured"
                + " rounds of each configuration (%d of Vigil's side of the Java ones and of each reference, at least %d"
                + " of Vigil's side of the C ones%s: %s), not counted; the first close of the process (C x1 in flight,"
                + " cold JIT): %.2f ms, close minus slowest reap %.2f ms.%n", WARM_UP_CLOSES, FEW_WARM_UP_ROUNDS,
                WARM_UP_ROUNDS, JIT_QUIET ? String.format(Locale.ROOT, ", then more until the JIT's compiler threads took"
                + " under %.0f %% of the close's time (or 0.1 ms) in %d closes in a row, at most %d s of rounds", JIT_QUIET_SHARE
                * 100, JIT_QUIET_ROUNDS, WARM_UP_BOUND_NANOS / 1_000_000_000L) : "", warmUpRounds, ms(first.close()),
                ms(first.tail()));
        out.printf(Locale.ROOT, "Orchestrator threads: %d in the JVM at most (whatever the pool size; the JFR recording"
                + " of the phases below adds its own); Vigil's own, by name, seen during the closes: %s.%n", threads[0],
                String.join(", ", threadNames.keySet()));
        Map<String, List<Long>> byLabel = new java.util.LinkedHashMap<>();
        Map<String, Long> referenceClose = new java.util.LinkedHashMap<>();
        for (Config c : configs) {
            if (!c.inFlight()) {
                byLabel.put(c.label(), closeIds(vigil.get(c)));
                referenceClose.put(c.label(), median(reference.get(c), Sample::close));
            }
        }
        phases.print(out, byLabel, closeIds(idle), 10_000_000, referenceClose);
    }

    /**
     * The orchestrator's CPU per close by thread (every thread of the JVM, from schedstat), idle pools: which thread's
     * work competes with the exiting children for the cores.
     */
    private static void printThreadCpu(PrintStream out, List<Config> configs, Map<Config, List<Sample>> vigil) {
        List<Config> idle = configs.stream().filter(c -> !c.inFlight()).toList();
        Map<String, Long> most = new TreeMap<>(); // the largest median of each thread over the configurations
        for (Config c : idle) {
            for (Sample x : vigil.get(c)) {
                x.threads().keySet().forEach(name -> most.merge(name, median(vigil.get(c), y -> y.threads()
                        .getOrDefault(name, 0L)), Math::max));
            }
        }
        out.printf(Locale.ROOT, "%nOrchestrator CPU per close by thread (/proc/self/task/*/schedstat, every thread of the"
                + " JVM; the caller's is java), idle pools: median ms; threads with a median under 0.05 ms left out.%n%n");
        StringBuilder head = new StringBuilder("| thread |");
        StringBuilder rule = new StringBuilder("|---|");
        for (Config c : idle) {
            head.append(' ').append(c.label()).append(" |");
            rule.append("---|");
        }
        out.println(head);
        out.println(rule);
        for (String name : most.keySet()) {
            if (most.get(name) < 50_000) {
                continue;
            }
            StringBuilder row = new StringBuilder("| " + name + " |");
            for (Config c : idle) {
                row.append(String.format(Locale.ROOT, " %.2f |", ms(median(vigil.get(c), x -> x.threads()
                        .getOrDefault(name, 0L)))));
            }
            out.println(row);
        }
        StringBuilder total = new StringBuilder("| = all threads |");
        for (Config c : idle) {
            total.append(String.format(Locale.ROOT, " %.2f |", ms(median(vigil.get(c), Sample::cpu))));
        }
        out.println(total);
    }

    /** CPU of the JIT's compiler threads (C1, C2) during one close. */
    private static long jitCpu(Sample s) {
        long n = 0;
        for (Map.Entry<String, Long> e : s.threads().entrySet()) {
            if (e.getKey().startsWith("C1 Compiler") || e.getKey().startsWith("C2 Compiler")) {
                n += e.getValue();
            }
        }
        return n;
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
        }
        // the commands inside their handlers; idle children asleep on their doorbells, the start's work (and the JIT's
        // compiles it queued) done: an idle pool is closed idle (the reference waits as long)
        Thread.sleep(SETTLE_MILLIS);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Map<Integer, Object[]> cpu0 = ThreadCpu.snapshot(true);
        long t0 = MonotonicClock.nanos();
        CloseReport report = pool.closeWithReport();
        long t1 = MonotonicClock.nanos();
        Map<String, Long> threads = ThreadCpu.between(cpu0, ThreadCpu.snapshot(false));
        long cpu = threads.values().stream().mapToLong(Long::longValue).sum();
        long engine = threads.getOrDefault("vigil-close-eng", 0L); // comm: the thread name cut to 15 characters
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
        return new Sample(t1 - t0, lastReap - t0, cpu, engine, report.closeId(), threads, 0);
    }

    private static ChildSpec spec(Config c) {
        return c.kind().equals("C") ? ChildSpec.cDemo() : ChildSpec.java(DemoHandler.class.getName());
    }

    /**
     * One close by vigil-close-reference over the same kind and number of children; with {@code sameWork}, also the
     * work of a close beyond the protocol that the orchestrator does ({@link #SAME_WORK}): timed from the close's
     * first record, the children in a cgroup of their own (when the orchestrator's pools get one), every event
     * journaled into a mapped file, the container read before the releases and swept after the last reap, the report
     * as JSON, the cgroup removed.
     */
    private static Sample referenceRound(Orchestrator o, Path work, Config c, boolean sameWork) throws Exception {
        Path output = work.resolve("reference.txt");
        Map<String, String> env = new HashMap<>(System.getenv());
        if (sameWork) {
            env.put("VIGIL_REF_JOURNAL", work.resolve("reference-journal").toString());
            if (o.containment().mode() == dev.vigil.contain.ContainmentMode.CGROUP) {
                env.put("VIGIL_REF_CGROUP", o.containment().root().resolve("bench-reference").toString());
            }
        }
        List<String> argv = new ArrayList<>(List.of(o.nativeDir().resolve("vigil-close-reference").toString(),
                work.resolve("reference.map").toString(), Integer.toString(c.children()), c.inFlight() ? "1" : "0",
                c.kind().equals("Java") ? "1" : "0", // a Java child's doorbell is a pipe, as the orchestrator gives it
                Integer.toString(DemoHandler.OP_COOPERATIVE_SLEEP), Long.toString(IN_FLIGHT_MILLIS), "--"));
        argv.addAll(spec(c).argv(o.childRuntimes()));
        ChildProcess ref = o.spawner().spawn(SpawnRequest.of(argv).withEnvironment(env).withStdout(Redirect.writeTo(output))
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
        return new Sample(v.get("close_ns"), v.get("last_reap_ns"), v.get("cpu_ns"), 0, 0, Map.of(), v.get("told_ns"));
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
