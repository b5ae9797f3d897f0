package dev.vigil.mailbox;

import dev.vigil.child.ChildKind;
import dev.vigil.child.SpawnedChild;
import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import dev.vigil.journal.bench.BenchSummary;
import dev.vigil.pool.ThreadCpu;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Issue 10's ring benchmark, every figure against a baseline in the same run (bin/vigil-bench ring):
 * <ol>
 *   <li>transitions per second of 1 and 16 C demo children answering back-to-back echo controls, journaled (a
 *       flow-controlling {@link RingDrainer} into a real {@link JournalWriter}) against the same load with journaling
 *       off (nobody drains; the rings lap), and drained but not journaled (the same drainer, its sink drops the batches:
 *       the floor under journaling), in short rounds of the same children ({@link Rig}), the variants' order rotated
 *       every round ({@link Variant}); a rate is the median of its rounds, a ratio the median of each round's ratio to
 *       the off round next to it (the load of the moment divides out; the rounds' quartiles are printed beside it);
 *       drained rounds are checked lossless (every transition made in the round is in a MailboxTransitionBatch, no
 *       RingOverrun); where each round's time went, by thread kind (schedstat: on a CPU and waiting for one), against
 *       the whole machine's busy time ({@link Time}); and, robust to the host's modes and the load, the share of off's CPU
 *       the drivers and children kept and what they made per ms of it, with the command path's copying timed on a sample
 *       ({@link #decomposition});</li>
 *   <li>control round trip p50 of one C child with flow control on (drainer registered and running) against the
 *       same child with no drainer (what every round trip cost before flow control: no position to read);</li>
 *   <li>the drainer thread's CPU: 16 idle children for 10 s, and during the 16-children journaled rounds;</li>
 *   <li>journaling's threads (drainer, appender) at a paced rate of one in-process writer (2 M transitions a second, about
 *       one C child's on a quiet machine): their CPU and wake-ups, which the load of the machine moves far less than the
 *       children's rates.</li>
 * </ol>
 * Prints a Markdown section (bin/vigil-bench writes it into docs/BENCHMARKS.md between its bench:ring markers).
 * Settings: -Dvigil.bench.rounds (30), -Dvigil.bench.roundMillis (300), -Dvigil.bench.warmupRounds (3: uncounted rounds
 * of each variant first, 1 s each at least), -Dvigil.bench.pacedRate (2000000), -Dvigil.bench.pacedSeconds (3), -Dvigil.bench.perRound (20000), the ring's {@link RingSettings} properties (e.g.
 * -Dvigil.ring.capacity), -Dvigil.bench.rates.only=true (skip round trip and idle), -Dvigil.bench.children (1,16).
 */
public final class RingFlowControlBenchmark {
    static final int ROUNDS = Integer.getInteger("vigil.bench.rounds", 30);
    static final int WARMUP_ROUNDS = Integer.getInteger("vigil.bench.warmupRounds", 3);
    static final long ROUND_MILLIS = Long.getLong("vigil.bench.roundMillis", 300);
    static final int ROUND_TRIPS = Integer.getInteger("vigil.bench.perRound", 20_000);
    static final RingSettings RING = RingSettings.from(System::getProperty);
    /** Children per measured set of rounds: -Dvigil.bench.children (comma-separated, default 1,16). */
    static final int[] CHILDREN = java.util.Arrays.stream(System.getProperty("vigil.bench.children", "1,16").split(","))
            .map(String::trim).filter(c -> !c.isEmpty()).mapToInt(Integer::parseInt).toArray();

    private final Path dir;
    private int store;
    /** Rows for the summary table of docs/BENCHMARKS.md, printed after the section. */
    private final List<String> summary = new ArrayList<>();

    private RingFlowControlBenchmark(Path dir) {
        this.dir = dir;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("vigil-ring-bench-");
        int status = 0;
        try {
            System.out.print(new RingFlowControlBenchmark(dir).measure());
        } catch (IllegalStateException impossible) { // figures that cannot be true: none printed, the run fails
            System.out.println("ERR: ring bench: " + impossible.getMessage());
            status = 1;
        } finally {
            try (var paths = Files.walk(dir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        System.exit(status);
    }

    private String measure() throws Exception {
        StringBuilder report = new StringBuilder();
        report.append("```\n");
        report.append(String.format(Locale.ROOT, "ring flow control, C demo children, ring of %d records, %d rounds of %d ms per variant (order rotated"
                + " each round, the same children throughout) after %d of warm-up, %d cpus, load %s%n", RING.capacity(), ROUNDS, ROUND_MILLIS,
                WARMUP_ROUNDS, Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim()));
        report.append(String.format(Locale.ROOT, "%-9s %14s %14s %8s %14s %8s %15s %6s %12s %13s %10s%n", "children", "off trans/s",
                "drained/s", "ratio", "journaled/s", "ratio", "ratio p25-p75", "lost", "drainer CPU", "appender CPU", "CPU/trans"));
        StringBuilder time = new StringBuilder();
        StringBuilder switches = new StringBuilder();
        StringBuilder perRound = new StringBuilder();
        StringBuilder warmups = new StringBuilder();
        StringBuilder drainerCounts = new StringBuilder();
        StringBuilder decompositions = new StringBuilder();
        for (int children : CHILDREN) {
            List<List<Run>> runs = new ArrayList<>();
            for (Variant v : Variant.values()) {
                runs.add(new ArrayList<>());
            }
            try (Rig rig = new Rig(children)) {
                for (int round = 0; round < WARMUP_ROUNDS; round++) {
                    for (Variant v : Variant.values()) {
                        rig.round(v, Math.max(ROUND_MILLIS, 1000)); // not counted: the first rounds of a variant compile its paths (JIT ~30-80 ms a second)
                    }
                }
                warmups.append(String.format(Locale.ROOT, "  %-9d %s%n", children, untilTheJitIsQuiet(rig)));
                for (int round = 0; round < ROUNDS; round++) {
                    for (int k = 0; k < Variant.values().length; k++) {
                        Variant v = Variant.values()[(round + k) % Variant.values().length]; // no variant always first or last
                        runs.get(v.ordinal()).add(rig.round(v, ROUND_MILLIS));
                    }
                }
            }
            List<Run> offRuns = runs.get(Variant.OFF.ordinal());
            List<Run> drainedRuns = runs.get(Variant.DRAINED.ordinal());
            List<Run> journaledRuns = runs.get(Variant.JOURNALED.ordinal());
            double off = median(offRuns.stream().mapToDouble(Run::rate).toArray());
            double drained = median(drainedRuns.stream().mapToDouble(Run::rate).toArray());
            double on = median(journaledRuns.stream().mapToDouble(Run::rate).toArray());
            // each round's journaled (drained) rate over the off rate of the same round: the load of the moment divides out
            double[] onRatios = new double[ROUNDS];
            double[] drainedRatios = new double[ROUNDS];
            for (int round = 0; round < ROUNDS; round++) {
                onRatios[round] = journaledRuns.get(round).rate() / offRuns.get(round).rate();
                drainedRatios[round] = drainedRuns.get(round).rate() / offRuns.get(round).rate();
            }
            double onRatio = median(onRatios);
            double drainedRatio = median(drainedRatios);
            long lost = 0;
            for (Variant v : new Variant[] {Variant.DRAINED, Variant.JOURNALED}) {
                lost += runs.get(v.ordinal()).stream().mapToLong(Run::lost).sum();
            }
            long cpu = journaledRuns.stream().mapToLong(Run::drainerCpuNanos).sum();
            long appenderCpu = journaledRuns.stream().mapToLong(Run::appenderCpuNanos).sum();
            long wall = journaledRuns.stream().mapToLong(Run::wallNanos).sum();
            long journaledTransitions = journaledRuns.stream().mapToLong(r -> (long) (r.rate() * r.wallNanos() / 1e9)).sum();
            report.append(String.format(Locale.ROOT, "%-9d %14.0f %14.0f %7.1f%% %14.0f %7.1f%% %7.1f-%5.1f%% %6d %11.2f%% %12.2f%% %7.0f ns%n",
                    children, off, drained, 100.0 * drainedRatio, on, 100.0 * onRatio, 100.0 * percentile(onRatios, 25), 100.0 * percentile(onRatios, 75), lost,
                    100.0 * cpu / wall, 100.0 * appenderCpu / wall, (double) (cpu + appenderCpu) / Math.max(1, journaledTransitions)));
            double[] onInterval = medianInterval(onRatios);
            double[] drainedInterval = medianInterval(drainedRatios);
            perRound.append(String.format(Locale.ROOT, "  %-9d %s%n  %-9s %s%n  %-9s median's 95 %% interval: journaled %.1f-%.1f %%, drained %.1f-%.1f %%%n",
                    children, percents(onRatios), "", percents(drainedRatios), "", 100 * onInterval[0], 100 * onInterval[1],
                    100 * drainedInterval[0], 100 * drainedInterval[1]));
            for (Variant v : Variant.values()) {
                Time sum = Time.sum(runs.get(v.ordinal()).stream().map(Run::time).toList());
                time.append(sum.row(children + " " + v.label));
                switches.append(sum.switchRow(children + " " + v.label));
                drainerCounts.append(countsRow(children + " " + v.label, runs.get(v.ordinal())));
            }
            decompositions.append(decomposition(children, runs));
            String who = children + " C " + (children == 1 ? "child" : "children") + " (back-to-back controls)";
            String spread = String.format(Locale.ROOT, "%.1f %% (rounds p25-p75 %.1f-%.1f %%; the median's 95 %% interval %.1f-%.1f %%)",
                    100.0 * onRatio, 100.0 * percentile(onRatios, 25), 100.0 * percentile(onRatios, 75), 100 * onInterval[0], 100 * onInterval[1]);
            double elsewhere = elsewhereShare(runs);
            String target = ">= 90 % of off, lossless";
            // Other work on the machine decides a pair's rate (it ping-pongs only while both run at once): no verdict from
            // a run where it took more than a few percent, nor where journaled came out well above off (the same noise).
            boolean decidable = elsewhere <= MAX_ELSEWHERE_SHARE && onRatio <= 1.1;
            summary.add(new BenchSummary("journaled transitions/s, " + who, String.format(Locale.ROOT, "%.0f/s, %d lost, drainer %.2f %% of a core",
                    on, lost, 100.0 * cpu / wall), String.format(Locale.ROOT, "journaling off %.0f/s", off), spread,
                    decidable || lost > 0 ? target : String.format(Locale.ROOT, "%s (not decided: other work took %.0f %% of the machine's CPU)",
                            target, 100 * elsewhere),
                    decidable || lost > 0 ? (onRatio >= 0.9 && lost == 0 ? BenchSummary.Verdict.MET : BenchSummary.Verdict.MISSED)
                            : BenchSummary.Verdict.NO_TARGET).line());
            summary.add(BenchSummary.reported("drained, not journaled, transitions/s, " + who + ": the floor under journaling",
                    String.format(Locale.ROOT, "%.0f/s", drained), String.format(Locale.ROOT, "journaling off %.0f/s", off),
                    String.format(Locale.ROOT, "%.1f %%", 100.0 * drainedRatio)).line());
        }
        report.append(String.format(Locale.ROOT, "warm-up after the %d rounds of each variant: sets of rounds (each variant once, %d ms,"
                + " rotated) until the JIT's threads took under %.0f %% of every round of %d sets in a row (at most %d s):%n", WARMUP_ROUNDS,
                ROUND_MILLIS, 100 * JIT_QUIET_SHARE, JIT_QUIET_SETS, JIT_QUIET_BOUND_SECONDS)).append(warmups);
        report.append("rates: medians of the rounds; ratios: the median of each round's journaled (drained) rate over the off rate of the"
                + " same round; each round's, journaled then drained, in the order run:\n").append(perRound);
        report.append("where a round's time went, per second of it: ms on a CPU (ms runnable, waiting for a CPU) by thread kind"
                + " (schedstat), the rest of the machine's busy ms (/proc/stat: other processes, kernel threads), stolen ms, and idle ms"
                + " (all CPUs; a pair that spins leaves none, one that sleeps and is woken by its doorbell leaves some):\n");
        report.append(String.format(Locale.ROOT, "  %-15s", "children"));
        for (String kind : KINDS) {
            report.append(String.format(Locale.ROOT, " %13s", kind));
        }
        report.append(String.format(Locale.ROOT, " %7s %6s %6s%n", "rest", "steal", "idle")).append(time);
        report.append("context switches per 1,000 transitions (/proc/.../status): voluntary (slept: park, nanosleep, futex) and"
                + " involuntary (preempted), of the driver threads and the C children; times the drainer and the appender were given a CPU (schedstat):\n");
        report.append(String.format(Locale.ROOT, "  %-15s", "children"));
        for (String kind : SWITCHES) {
            report.append(String.format(Locale.ROOT, " %13s", kind));
        }
        report.append('\n').append(switches);
        report.append("the drainer's counts per second (RingDrainer.Counts): parent writers that found a ring full and waited,"
                + " writers of any process (the C children's included) a drain found waiting on a full ring, the command path's pieces"
                + " (copied while a child answers), its drains at a completion (ring half full) and those it left to the thread holding"
                + " the cursor, background passes and the mailboxes they left so:\n");
        report.append(String.format(Locale.ROOT, "  %-15s", "children"));
        for (String kind : new String[] {"ring full", "writers held", "pieces", "inline drains", "inline busy", "passes", "pass busy"}) {
            report.append(String.format(Locale.ROOT, " %13s", kind));
        }
        report.append('\n').append(drainerCounts);
        report.append("against off, from the sums over each variant's rounds: the share of off's CPU the drivers and children kept,"
                + " the transitions they made per ms of it (the product is about the rate ratio), the ms a second this JVM's other threads"
                + " and other processes took beyond off's; the command path's copying (RingDrainer.commandIssued, 1 call in "
                + ISSUED_SAMPLE + " timed): ns a transition and share of the drivers' CPU, pieces a second, transitions a piece:\n");
        report.append(String.format(Locale.ROOT, "  %-15s %11s %15s %13s %11s %16s %11s %11s %9s%n", "children", "CPU kept", "trans per CPU",
                "JVM others ms", "others ms", "copy/trans", "of drivers", "pieces/s", "per piece")).append(decompositions);
        report.append(pacedCost());
        report.append(cpuPerTransition());
        if (!Boolean.getBoolean("vigil.bench.rates.only")) {
            report.append(roundTrips());
            report.append(idleDrainer());
            report.append(batchCost());
        }
        report.append(String.format(Locale.ROOT, "load after: %s%n", Files.readString(Path.of("/proc/loadavg")).trim()));
        report.append("```\n");
        for (String line : summary) {
            report.append(line).append('\n');
        }
        return report.toString();
    }

    /** The most of a round's wall time the JIT's compiler threads may take for the round to count as quiet: -Dvigil.bench.jitQuietShare. */
    static final double JIT_QUIET_SHARE = Double.parseDouble(System.getProperty("vigil.bench.jitQuietShare", "0.02"));
    /** Quiet sets in a row that end the warm-up: -Dvigil.bench.jitQuietSets (0: no such warm-up, the fixed rounds only). */
    static final int JIT_QUIET_SETS = Integer.getInteger("vigil.bench.jitQuietSets", 3);
    static final int JIT_QUIET_BOUND_SECONDS = Integer.getInteger("vigil.bench.jitQuietBoundSeconds", 30);

    /**
     * Uncounted sets of rounds (every variant once, in rotated order, as measured) until the JIT's compiler threads took
     * under {@link #JIT_QUIET_SHARE} of each round's wall in {@link #JIT_QUIET_SETS} sets in a row, at most
     * {@link #JIT_QUIET_BOUND_SECONDS}: the fixed warm-up left the journaled rounds compiling (quiet run, 2026-12-04 10:22
     * UTC: JIT 37 ms a second in journaled rounds, 7-12 in the others; -XX:+PrintCompilation and JFR showed the drainer's
     * drainLocked deoptimized (unstable_if on branches rare in a live ring: a record caught mid-publish, records held out
     * of order) and recompiled at tier 4, 50-400 ms of a compiler thread each, in measured rounds 38 and 40 of 45). Each
     * such compile preempts a spinning driver or child. Returns what it did, for the report.
     */
    private static String untilTheJitIsQuiet(Rig rig) throws Exception {
        long deadline = System.nanoTime() + JIT_QUIET_BOUND_SECONDS * 1_000_000_000L;
        int sets = 0;
        int quietInARow = 0;
        while (quietInARow < JIT_QUIET_SETS) {
            if (System.nanoTime() - deadline > 0) {
                return String.format(Locale.ROOT, "%d sets, bound reached (%d quiet in a row)", sets, quietInARow);
            }
            boolean quiet = true;
            for (int k = 0; k < Variant.values().length; k++) {
                Run run = rig.round(Variant.values()[(sets + k) % Variant.values().length], ROUND_MILLIS);
                quiet &= run.time().cpu()[JIT] <= JIT_QUIET_SHARE * run.time().wall();
            }
            sets++;
            quietInARow = quiet ? quietInARow + 1 : 0;
        }
        return String.format(Locale.ROOT, "%d sets", sets);
    }

    /** Drainer and journal appender CPU over the journaled rounds: what journaling a transition costs besides the children. */
    record Run(double rate, long lost, long drainerCpuNanos, long appenderCpuNanos, long wallNanos, Time time, RingDrainer.Counts counts,
            long sampledIssuedNanos, long sampledIssued) {
    }

    /**
     * One in {@value} of the command path's {@link RingDrainer#commandIssued} calls is timed: two clock reads on every call
     * (~50 ns) would be 5-10 % of a round trip of the rounds they measure; one in 64 is under 1 ns a control.
     */
    static final int ISSUED_SAMPLE = 64;

    /**
     * Where the pair's time went, journaled (drained) rounds against off, from the sums over all rounds of each variant
     * (robust to the host's modes and the load, which the rates are not): the share of off's CPU the drivers and children
     * kept (the rest went to this JVM's other threads and to other processes), and the transitions they made per ms of it
     * against off's (the cost of draining on their own path: the command path's copies and the cache lines they move).
     * Their product is about the rate ratio. Then the command path's copying, from the sampled {@link RingDrainer#commandIssued}
     * calls: ns a transition and share of the drivers' CPU, pieces a second and records a piece.
     */
    private static String decomposition(int children, List<List<Run>> runs) {
        Time off = Time.sum(runs.get(Variant.OFF.ordinal()).stream().map(Run::time).toList());
        StringBuilder out = new StringBuilder();
        for (Variant v : new Variant[] {Variant.DRAINED, Variant.JOURNALED}) {
            List<Run> rs = runs.get(v.ordinal());
            Time t = Time.sum(rs.stream().map(Run::time).toList());
            double kept = t.pairShare() / off.pairShare();
            double perCpu = t.transitionsPerPairNanos() / off.transitionsPerPairNanos();
            long sampledNanos = rs.stream().mapToLong(Run::sampledIssuedNanos).sum();
            long sampled = rs.stream().mapToLong(Run::sampledIssued).sum();
            long pieces = rs.stream().mapToLong(r -> r.counts().pieces()).sum();
            double copyPerTransition = (double) sampledNanos / Math.max(1, sampled) / 3.0; // a control is 3 transitions
            out.append(String.format(Locale.ROOT, "  %-15s %9.1f %% %13.1f %% %13.0f %11.0f %13.1f ns %9.1f %% %11.0f %9.1f%n", children + " " + v.label,
                    100 * kept, 100 * perCpu, t.perSecond(t.ourOthers()) - off.perSecond(off.ourOthers()), t.perSecond(t.rest()) - off.perSecond(off.rest()),
                    copyPerTransition, 100 * copyPerTransition * t.transitions() / Math.max(1, t.cpu()[0]), pieces * 1e9 / Math.max(1, t.wall()),
                    (double) t.transitions() / Math.max(1, pieces)));
        }
        return out.toString();
    }

    /** One row: per second of the variant's rounds, the drainer's counts ({@link RingDrainer.Counts}); empty for off. */
    private static String countsRow(String label, List<Run> runs) {
        long[] sum = new long[7];
        long wall = 0;
        for (Run run : runs) {
            RingDrainer.Counts c = run.counts();
            if (c == null) {
                return "";
            }
            long[] n = {c.ringFullWaits(), c.writersHeld(), c.pieces(), c.inlineDrains(), c.inlineBusy(), c.passes(), c.passBusy()};
            for (int i = 0; i < n.length; i++) {
                sum[i] += n[i];
            }
            wall += run.wallNanos();
        }
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "  %-15s", label));
        for (long n : sum) {
            out.append(String.format(Locale.ROOT, " %13.1f", n * 1e9 / Math.max(1, wall)));
        }
        return out.append('\n').toString();
    }

    /**
     * Where a round's time went, from schedstat (ThreadCpu): nanoseconds on a CPU and runnable but waiting for one, by
     * thread kind ({@link #KINDS}: the parent's driver threads, the C children, the drainer, the journal appender, GC, JIT,
     * the bench JVM's other threads), and the whole machine's busy and stolen time over the round (/proc/stat, ticks).
     */
    record Time(long[] cpu, long[] waiting, long machineBusy, long machineSteal, long wall, long[] switches, long transitions) {
        static Time sum(List<Time> times) {
            long[] cpu = new long[KINDS.length];
            long[] waiting = new long[KINDS.length];
            long[] switches = new long[SWITCHES.length];
            long busy = 0;
            long steal = 0;
            long wall = 0;
            long transitions = 0;
            for (Time t : times) {
                for (int k = 0; k < KINDS.length; k++) {
                    cpu[k] += t.cpu[k];
                    waiting[k] += t.waiting[k];
                }
                for (int k = 0; k < SWITCHES.length; k++) {
                    switches[k] += t.switches[k];
                }
                busy += t.machineBusy;
                steal += t.machineSteal;
                wall += t.wall;
                transitions += t.transitions;
            }
            return new Time(cpu, waiting, busy, steal, wall, switches, transitions);
        }

        /** The drivers' and children's CPU over all CPUs' wall (2 CPUs spinning: 1.0). */
        double pairShare() {
            return (double) (cpu[0] + cpu[1]) / Math.max(1, wall * Runtime.getRuntime().availableProcessors());
        }

        double transitionsPerPairNanos() {
            return (double) transitions / Math.max(1, cpu[0] + cpu[1]);
        }

        /** CPU of this JVM's threads other than the drivers (drainer, appender, GC, JIT, the rest of the JVM). */
        long ourOthers() {
            long sum = 0;
            for (int k = 2; k < KINDS.length; k++) {
                sum += cpu[k];
            }
            return sum;
        }

        /** Busy time of the machine that is not this bench's (other processes, kernel threads). */
        long rest() {
            return machineBusy - java.util.Arrays.stream(cpu).sum();
        }

        /** One row: context switches of the drivers and the children per 1,000 transitions (SWITCHES). */
        String switchRow(String label) {
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "  %-15s", label));
            for (long n : switches) {
                out.append(String.format(Locale.ROOT, " %13.2f", 1e3 * n / Math.max(1, transitions)));
            }
            return out.append('\n').toString();
        }

        /** One row: per second of wall, ms on a CPU (ms waiting for one) of each kind; the rest of the machine's busy time. */
        String row(String label) {
            StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "  %-15s", label));
            long ours = 0;
            for (int k = 0; k < KINDS.length; k++) {
                ours += cpu[k];
                out.append(String.format(Locale.ROOT, " %6.0f (%4.0f)", perSecond(cpu[k]), perSecond(waiting[k])));
            }
            long idle = wall * Runtime.getRuntime().availableProcessors() - machineBusy; // machineBusy counts steal too
            return out.append(String.format(Locale.ROOT, " %7.0f %6.0f %6.0f%n", perSecond(machineBusy - ours), perSecond(machineSteal),
                    perSecond(Math.max(0, idle)))).toString();
        }

        double perSecond(long nanos) {
            return 1e3 * nanos / Math.max(1, wall) ;
        }
    }

    static final String[] KINDS = {"drivers", "children", "drainer", "appender", "GC", "JIT", "other JVM"};
    /** The JIT's compiler threads in {@link #KINDS}. */
    static final int JIT = 5;
    /**
     * Context switches (/proc/.../status): voluntary (the thread slept: a park, a nanosleep, a futex wait) and
     * involuntary (preempted), of the driver threads and of the C children; then how many times the drainer and the
     * journal appender threads were given a CPU (schedstat: their wake-ups, and returns from preemption).
     */
    static final String[] SWITCHES = {"drivers vol", "drivers invol", "children vol", "children invol", "drainer runs", "appender runs"};

    /** voluntary_ctxt_switches and nonvoluntary_ctxt_switches of a task ({@code /proc/PID} or a thread's), 0s when unreadable. */
    private static long[] contextSwitches(Path task) {
        long[] out = new long[2];
        try {
            for (String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    out[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    out[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (java.io.IOException | RuntimeException unreadable) {
            // a task that is gone: counted as none
        }
        return out;
    }

    private static long[] childrenSwitches(List<SpawnedChild> children) {
        long[] out = new long[2];
        for (SpawnedChild child : children) {
            long[] c = contextSwitches(Path.of("/proc/" + child.pid()));
            out[0] += c[0];
            out[1] += c[1];
        }
        return out;
    }

    /** The kind (index into KINDS) of a thread of this JVM by its schedstat name (comm, trailing number dropped). */
    private static int kind(String thread) {
        if (thread.startsWith("ring-driver")) {
            return 0;
        } else if (thread.startsWith("vigil-ring-dra")) {
            return 2;
        } else if (thread.startsWith("vigil-journal-a")) {
            return 3;
        } else if (thread.startsWith("GC Thread") || thread.startsWith("G1 ") || thread.startsWith("VM Thread")) {
            return 4;
        } else if (thread.contains("CompilerThre")) {
            return JIT;
        }
        return 6;
    }

    /** Busy and steal clock ticks of the whole machine so far (/proc/stat's cpu line), in nanoseconds. */
    private static long[] machineNanos() throws java.io.IOException {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long busy = 0;
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) { // user nice system irq softirq steal
            busy += Long.parseLong(f[i]);
        }
        long tick = 1_000_000_000L / 100; // USER_HZ
        return new long[] {busy * tick, Long.parseLong(f[8]) * tick};
    }

    /** CPU time so far of this JVM's journal appender threads (nanos). */
    private static long appenderCpuNanos() {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("vigil-journal-appender")) {
                sum += Math.max(0, threads.getThreadCpuTime(thread.getId()));
            }
        }
        return sum;
    }

    /**
     * The three ways a round runs the same children: nobody drains (the rings lap, writers never wait: what the children
     * cost without a journal, the baseline); a flow-controlling drainer whose sink counts the transitions and drops them
     * (the rings drained as when journaled, inline drains and wake-ups included, nothing written: what draining alone
     * costs, the floor under journaling); and the drainer journaling into a real JournalWriter.
     */
    enum Variant {
        OFF("off"), DRAINED("drained only"), JOURNALED("journaled");

        final String label;

        Variant(String label) {
            this.label = label;
        }
    }

    /**
     * {@code children} C children spawned once, with one journal, for every round of every variant: a round differs from
     * the others by its variant alone (not by where the children happen to be placed, nor by a fresh journal's first
     * pages), and rounds can be short and many, so the load of the moment falls on the variants alike.
     */
    private final class Rig implements AutoCloseable {
        final MailboxStore mailboxes;
        final JournalWriter journal;
        final List<MailboxHandle> handles = new ArrayList<>();
        final List<SpawnedChild> spawned = new ArrayList<>();

        Rig(int children) throws Exception {
            mailboxes = MailboxStore.createOrOpen(dir.resolve("bench-" + store + ".map"), children + 1, RING);
            journal = JournalWriter.open(dir.resolve("journal-" + store++));
            for (int i = 0; i < children; i++) {
                MailboxHandle handle = mailboxes.allocate(new MailboxId("bench", "c", i), ProtocolMode.STICKY);
                handles.add(handle);
                spawned.add(SpawnedChild.spawn(ChildKind.C.argv(List.of()), ChildKind.C.env(handle, DemoBehaviour.DEFAULT),
                        dir.resolve("child.log")));
            }
            for (MailboxHandle handle : handles) {
                if (handle.awaitInit(Duration.ofSeconds(30)) != InitOutcome.READY) {
                    throw new IllegalStateException("child not ready: " + handle);
                }
            }
        }

        /**
         * One round of {@code millis} as {@code variant} says. A drained or journaled round starts a drainer of its own as
         * the orchestrator starts one; its first drain of each mailbox (before the clock starts) skips what earlier
         * rounds left in the ring (off rounds lap it), and from there every transition of the round must reach its sink:
         * lost = the sequence numbers the mailboxes advanced in the round minus the transitions the sink got.
         */
        Run round(Variant variant, long millis) throws Exception {
            AtomicLong transitions = new AtomicLong();
            Consumer<JournalEvent> sink = e -> {
                if (e instanceof MailboxTransitionBatch b) {
                    transitions.addAndGet(b.size());
                }
                if (variant == Variant.JOURNALED) {
                    journal.append(e);
                }
            };
            RingDrainer drainer = variant == Variant.OFF ? null : new RingDrainer(sink);
            long[] seqBefore = new long[handles.size()];
            List<long[]> issuedSamples = new ArrayList<>(); // per handle: calls, sampled ns, sampled calls (its driver's alone)
            if (drainer != null) {
                for (MailboxHandle handle : handles) {
                    drainer.register(handle);
                    caughtUpBeforeTheClock(drainer, handle);
                    long[] n = new long[3];
                    issuedSamples.add(n);
                    handle.onCommandIssued(() -> { // the drainer's own hook, one call in ISSUED_SAMPLE timed
                        if (++n[0] % ISSUED_SAMPLE != 0) {
                            drainer.commandIssued(handle);
                            return;
                        }
                        long t0 = System.nanoTime();
                        drainer.commandIssued(handle);
                        n[1] += System.nanoTime() - t0;
                        n[2]++;
                    });
                }
                drainer.start(dev.vigil.pool.Orchestrator.DRAIN_PERIOD, () -> 0L);
            }
            journal.flush();
            for (int i = 0; i < handles.size(); i++) {
                seqBefore[i] = MailboxDescriptor.seq(handles.get(i).stateWord());
            }
            transitions.set(0);
            long cpuBefore = drainer == null ? 0 : drainer.backgroundCpuNanos();
            long appenderBefore = appenderCpuNanos();
            long[] childrenBefore = childrenSchedstat(spawned);
            long[] childrenSwitchesBefore = childrenSwitches(spawned);
            long[] machineBefore = machineNanos();
            Map<Integer, Object[]> threadsBefore = ThreadCpu.snapshot(true);
            long start = System.nanoTime();
            long end = start + millis * 1_000_000L;
            List<Thread> drivers = new ArrayList<>();
            AtomicLong controls = new AtomicLong();
            AtomicLong driversCpu = new AtomicLong();
            AtomicLong driversWaiting = new AtomicLong();
            AtomicLong driversVoluntary = new AtomicLong();
            AtomicLong driversInvoluntary = new AtomicLong();
            java.lang.management.ThreadMXBean threadBean = java.lang.management.ManagementFactory.getThreadMXBean();
            for (MailboxHandle handle : handles) {
                Thread t = new Thread(() -> {
                    // the bean looked up once, before the clock: 16 drivers looking it up at once waited up to 5 ms on its lock (JFR)
                    long cpu0 = threadBean.getCurrentThreadCpuTime();
                    long waiting0 = Math.max(0, ThreadCpu.waiting(Path.of("/proc/thread-self")));
                    long[] switches0 = contextSwitches(Path.of("/proc/thread-self"));
                    long n = 0;
                    while (System.nanoTime() - end < 0) {
                        handle.control(DemoHandler.OP_ECHO, n++, Duration.ofSeconds(30));
                    }
                    controls.addAndGet(n);
                    // its own schedstat now: a thread's figures end with it (the snapshot after the round misses it)
                    driversCpu.addAndGet(threadBean.getCurrentThreadCpuTime() - cpu0);
                    driversWaiting.addAndGet(Math.max(0, ThreadCpu.waiting(Path.of("/proc/thread-self"))) - waiting0);
                    long[] switches = contextSwitches(Path.of("/proc/thread-self"));
                    driversVoluntary.addAndGet(switches[0] - switches0[0]);
                    driversInvoluntary.addAndGet(switches[1] - switches0[1]);
                }, "ring-driver-" + drivers.size());
                drivers.add(t);
                t.start();
            }
            for (Thread t : drivers) {
                t.join();
            }
            long wall = System.nanoTime() - start;
            Map<Integer, Object[]> threadsAfter = ThreadCpu.snapshot(false);
            long[] machineAfter = machineNanos();
            long[] childrenAfter = childrenSchedstat(spawned);
            long[] childrenSwitchesAfter = childrenSwitches(spawned);
            long cpu = drainer == null ? 0 : drainer.backgroundCpuNanos() - cpuBefore;
            long appenderCpu = appenderCpuNanos() - appenderBefore;
            long[] kindCpu = new long[KINDS.length];
            long[] kindWaiting = new long[KINDS.length];
            ThreadCpu.between(threadsBefore, threadsAfter).forEach((name, nanos) -> kindCpu[kind(name)] += nanos);
            ThreadCpu.waitingBetween(threadsBefore, threadsAfter).forEach((name, nanos) -> kindWaiting[kind(name)] += nanos);
            kindCpu[0] = driversCpu.get();
            kindWaiting[0] = driversWaiting.get();
            kindCpu[1] = childrenAfter[0] - childrenBefore[0];
            kindWaiting[1] = childrenAfter[1] - childrenBefore[1];
            long[] kindSlices = new long[KINDS.length];
            ThreadCpu.slicesBetween(threadsBefore, threadsAfter).forEach((name, n) -> kindSlices[kind(name)] += n);
            long[] switches = {driversVoluntary.get(), driversInvoluntary.get(), childrenSwitchesAfter[0] - childrenSwitchesBefore[0],
                    childrenSwitchesAfter[1] - childrenSwitchesBefore[1], kindSlices[2], kindSlices[3]};
            Time time = new Time(kindCpu, kindWaiting, machineAfter[0] - machineBefore[0], machineAfter[1] - machineBefore[1], wall,
                    switches, 3 * controls.get());
            long made = 0;
            for (int i = 0; i < handles.size(); i++) {
                made += MailboxDescriptor.seq(handles.get(i).stateWord()) - seqBefore[i];
            }
            long lost = 0;
            RingDrainer.Counts counts = drainer == null ? null : drainer.counts();
            if (drainer != null) {
                drainer.stop();
                drainCaughtUp(drainer);
                drainer.close(); // flow control off: the next round's variant decides
                lost = made - transitions.get();
                if (lost < 0) { // a transition counted twice, or one made before the clock counted in the round: the figures are void
                    throw new IllegalStateException(String.format(Locale.ROOT, "%s round of %d children: the sink got %d transitions,"
                            + " the mailboxes made %d in the round (%d more than made)", variant.label, handles.size(),
                            transitions.get(), made, -lost));
                }
                if (variant == Variant.JOURNALED) {
                    journal.flush();
                }
            }
            long[] sampled = new long[2];
            for (long[] n : issuedSamples) {
                sampled[0] += n[1];
                sampled[1] += n[2];
            }
            return new Run(3.0 * controls.get() * 1e9 / wall, lost, cpu, appenderCpu, wall, time, counts, sampled[0], sampled[1]);
        }

        /**
         * Brings a round's fresh drainer to where the mailbox is now, before the clock: waits (at most 5 s) until every
         * ticket claimed in the ring is published (a child's last record can still be unpublished for a moment after the
         * parent saw its CAS; nothing else writes between rounds), then drains it finally: what earlier rounds left is
         * journaled, and what their lapping overwrote becomes RingOverrun events at once. A plain first drain left the
         * records after such a gap held until the drainer's stall bound (1 s) declared the gap lost, by then inside the
         * round: they were counted as the round's ("-1023 lost", 16 children, 2026-12-04 10:22 UTC). Afterwards the
         * drainer's last sequence number is the state word's, so lost = made - transitions is exact from the clock on.
         */
        private void caughtUpBeforeTheClock(RingDrainer drainer, MailboxHandle handle) throws InterruptedException {
            MappedMailbox mailbox = handle.mailbox();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!allPublished(mailbox)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("a claimed ring record of " + handle + " stayed unpublished for 5 s between rounds");
                }
                Thread.sleep(1);
            }
            drainer.drainFinal(handle, 0);
            long seq = MailboxDescriptor.seq(handle.stateWord());
            if (drainer.lastSeq(handle) != seq) {
                throw new IllegalStateException("the drainer of " + handle + " is at seq " + drainer.lastSeq(handle)
                        + " after its first drain, the state word at " + seq);
            }
        }

        /** Whether every ticket the ring still holds is published (none claimed and not yet written). */
        private static boolean allPublished(MappedMailbox mailbox) {
            long head = mailbox.ringHeadAcquire();
            for (long ticket = Math.max(0, head - mailbox.ringCapacity()); ticket < head; ticket++) {
                if (!mailbox.readRing(ticket).readable()) {
                    return false;
                }
            }
            return true;
        }

        /**
         * Drains every mailbox until the drainer has reached its state word's sequence number (a child's last record can
         * still be unpublished for a moment after the parent saw its CAS), at most 5 s.
         */
        private void drainCaughtUp(RingDrainer drainer) throws InterruptedException {
            long deadline = System.nanoTime() + 5_000_000_000L;
            for (MailboxHandle handle : handles) {
                long target = MailboxDescriptor.seq(handle.stateWord());
                drainer.drain(handle, 0);
                while (drainer.lastSeq(handle) < target && System.nanoTime() - deadline < 0) {
                    Thread.sleep(1);
                    drainer.drain(handle, 0);
                }
            }
        }

        @Override
        public void close() {
            try {
                for (MailboxHandle handle : handles) {
                    handle.publishShutdown(1);
                }
                for (SpawnedChild child : spawned) {
                    child.awaitExit(Duration.ofSeconds(30));
                }
            } finally {
                for (SpawnedChild child : spawned) {
                    child.close();
                }
                journal.close();
                mailboxes.close();
            }
        }
    }

    /**
     * The most of the machine's CPU that other work (other processes, kernel threads: the rest column) may take in a run's
     * rounds for the run to decide the target: a quiet run took ~1 % (docs/BENCHMARKS.md, 2026-12-03 23:27 UTC), this
     * VM's loaded ones 35-80 %.
     */
    static final double MAX_ELSEWHERE_SHARE = Double.parseDouble(System.getProperty("vigil.bench.maxElsewhere", "0.05"));

    /** The share of the machine's CPU (all cores, all rounds) that work other than this bench's took. */
    private static double elsewhereShare(List<List<Run>> runs) {
        long elsewhere = 0;
        long capacity = 0;
        for (List<Run> variant : runs) {
            for (Run run : variant) {
                Time t = run.time();
                elsewhere += t.machineBusy() - java.util.Arrays.stream(t.cpu()).sum();
                capacity += t.wall() * Runtime.getRuntime().availableProcessors();
            }
        }
        return capacity == 0 ? 0 : Math.max(0, (double) elsewhere / capacity);
    }

    static double median(double[] values) {
        return percentile(values, 50);
    }

    /** The value at {@code p} percent of the sorted values, interpolated between neighbours. */
    static double percentile(double[] values, double p) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        double at = p / 100 * (sorted.length - 1);
        int below = (int) Math.floor(at);
        int above = Math.min(sorted.length - 1, below + 1);
        return sorted[below] + (at - below) * (sorted[above] - sorted[below]);
    }

    /**
     * A 95 % confidence interval of the median of {@code values} that assumes nothing of their distribution: the values
     * of ranks n/2 - 0.98 sqrt(n) (down) and 1 + n/2 + 0.98 sqrt(n) (up) of the sorted values (the binomial count of values
     * below the true median, normal approximation; ranks 9 and 22 of 30). The rounds' ratios are far from normal (one
     * child: 1.8 % to 4,575 % in one run of 2026-12-04, a pair asleep or the other way round), so a mean and its error
     * would say little; a single run's median moved by 5-10 points between runs of the same build (16 children).
     * NaN for fewer than 6 values.
     */
    static double[] medianInterval(double[] values) {
        int n = values.length;
        if (n < 6) {
            return new double[] {Double.NaN, Double.NaN};
        }
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        double half = 1.96 * Math.sqrt(n) / 2;
        int low = Math.max(1, (int) Math.floor(n / 2.0 - half));
        int high = Math.min(n, (int) Math.ceil(1 + n / 2.0 + half));
        return new double[] {sorted[low - 1], sorted[high - 1]};
    }

    private static String percents(double[] ratios) {
        StringBuilder out = new StringBuilder();
        for (double r : ratios) {
            out.append(String.format(Locale.ROOT, " %5.1f%%", 100.0 * r));
        }
        return out.toString().trim();
    }

    /** The C children's nanoseconds on a CPU and waiting for one so far (/proc/PID/schedstat; each runs one thread). */
    private static long[] childrenSchedstat(List<SpawnedChild> children) {
        long[] out = new long[2];
        for (SpawnedChild child : children) {
            Path task = Path.of("/proc/" + child.pid());
            out[0] += Math.max(0, ThreadCpu.onCpu(task));
            out[1] += Math.max(0, ThreadCpu.waiting(task));
        }
        return out;
    }

    /** One C child: round trip with flow control on (drainer running) against no drainer, alternating rounds. */
    private String roundTrips() throws Exception {
        Histogram with = new Histogram(3_600_000_000L, 3);
        Histogram without = new Histogram(3_600_000_000L, 3);
        try (MailboxStore mailboxes = MailboxStore.createOrOpen(dir.resolve("rt.map"), 4, RING);
                JournalWriter journal = JournalWriter.open(dir.resolve("rt-journal"))) {
            MailboxHandle handle = mailboxes.allocate(new MailboxId("bench", "rt", 0), ProtocolMode.STICKY);
            try (SpawnedChild child = SpawnedChild.spawn(ChildKind.C.argv(List.of()), ChildKind.C.env(handle, DemoBehaviour.DEFAULT),
                    dir.resolve("rt.log"))) {
                if (handle.awaitInit(Duration.ofSeconds(30)) != InitOutcome.READY) {
                    throw new IllegalStateException("child not ready");
                }
                roundTrips(handle, ROUND_TRIPS, null);
                for (int round = 0; round < ROUNDS; round++) {
                    roundTrips(handle, ROUND_TRIPS, without);
                    RingDrainer drainer = new RingDrainer(journal::append);
                    drainer.register(handle); // from ticket 0: the first drain counts the earlier, undrained rounds as lost
                    drainer.drain(handle, 0);
                    drainer.start(dev.vigil.pool.Orchestrator.DRAIN_PERIOD, () -> 0L);
                    roundTrips(handle, ROUND_TRIPS, with);
                    drainer.close();
                    drainer.forget(handle);
                }
                handle.publishShutdown(1);
                child.awaitExit(Duration.ofSeconds(30));
            }
        }
        double p50With = with.getValueAtPercentile(50) / 1e3;
        double p50Without = without.getValueAtPercentile(50) / 1e3;
        summary.add(new BenchSummary("mailbox round trip p50 with flow control (1 C child)",
                String.format(Locale.ROOT, "%.2f us", p50With), String.format(Locale.ROOT, "no drainer %.2f us", p50Without),
                BenchSummary.ratio(p50With / p50Without), "within 1.2x", p50With <= 1.2 * p50Without).line());
        return String.format(Locale.ROOT, "round trip, 1 C child, %d x %d: p50 %.2f us flow control on (p99 %.2f) vs %.2f us no drainer (p99 %.2f): %.2fx%n",
                ROUNDS, ROUND_TRIPS, p50With, with.getValueAtPercentile(99) / 1e3, p50Without, without.getValueAtPercentile(99) / 1e3,
                p50With / p50Without);
    }

    private static void roundTrips(MailboxHandle handle, int count, Histogram into) {
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            handle.control(DemoHandler.OP_ECHO, i, Duration.ofSeconds(10));
            if (into != null) {
                into.recordValue(System.nanoTime() - start);
            }
        }
    }

    /**
     * What the journal costs per drained batch, packed (one MailboxTransitionBatch, what the drainer journals) against the
     * same transitions as one MailboxTransition event each (what it journaled before), in the same run: bursts appended
     * into a real JournalWriter 1 ms apart (flushed), the appender thread's and the appending thread's CPU per transition.
     */
    private String batchCost() throws Exception {
        StringBuilder out = new StringBuilder("journal cost of one drained batch (400 bursts 1 ms apart, CPU per transition),"
                + " one MailboxTransitionBatch vs one MailboxTransition event each:\n");
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (JournalWriter journal = JournalWriter.open(dir.resolve("batch-journal"))) {
            long seq = 0;
            MailboxTransitionBatch.Builder packer = new MailboxTransitionBatch.Builder();
            for (int pass = 0; pass < 2; pass++) { // the first pass warms up
                for (int burst : new int[] {128, 512, 1024}) {
                    double[][] perTransition = new double[2][2];
                    for (int packed = 0; packed < 2; packed++) {
                        int bursts = 400;
                        long appender = appenderCpuNanos();
                        long producer = threads.getCurrentThreadCpuTime();
                        for (int b = 0; b < bursts; b++) {
                            for (int i = 0; i < burst; i++) {
                                if (packed == 1) {
                                    packer.add(++seq, System.nanoTime(), 4, 5, WriterRole.CHILD.code(), 2);
                                } else {
                                    journal.append(new MailboxTransition(System.nanoTime(), 1, "bench", 0, "c", 0, ++seq, 4, 5, "CHILD", 2));
                                }
                            }
                            if (packed == 1) {
                                journal.append(packer.build(1, "bench", 0, "c", 0, WriterRole.CODE_NAMES));
                            }
                            journal.flush();
                            Thread.sleep(1);
                        }
                        perTransition[packed][0] = (double) (appenderCpuNanos() - appender) / bursts / burst;
                        perTransition[packed][1] = (double) (threads.getCurrentThreadCpuTime() - producer) / bursts / burst;
                    }
                    if (pass == 1) {
                        out.append(String.format(Locale.ROOT, "  burst %4d: packed appender %6.0f ns, appending thread %5.0f ns;"
                                + " one event each: appender %6.0f ns, appending thread %5.0f ns%n", burst, perTransition[1][0],
                                perTransition[1][1], perTransition[0][0], perTransition[0][1]));
                    }
                }
            }
        }
        return out.toString();
    }

    /**
     * What journaling costs per transition in CPU, all threads of this JVM counted (the writer's inline drains, drainer,
     * appender, GC, JIT): one thread makes transitions as fast as it can in a flow-controlled mailbox of this process
     * (a control's three, then the command path's completion call), with the drainer journaling into a real
     * JournalWriter, against the same loop with journaling off (no drainer); the drainer's batches journaled as they are
     * (packed) and, for comparison, each transition as a MailboxTransition event of its own (the form before). Process
     * CPU per transition is far less at the mercy of other processes' load than a rate is.
     */
    private String cpuPerTransition() throws Exception {
        int transitions = Integer.getInteger("vigil.bench.cpuTransitions", 3_000_000);
        String[] variants = {"off", "packed", "one event each"};
        double[] nanos = new double[variants.length];
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        com.sun.management.OperatingSystemMXBean process = (com.sun.management.OperatingSystemMXBean) os;
        for (int pass = 0; pass < 2; pass++) { // the first pass warms up
            for (int v = 0; v < variants.length; v++) {
                Path journalDir = dir.resolve("cpu-journal-" + store);
                try (MailboxStore mailboxes = MailboxStore.createOrOpen(dir.resolve("cpu-" + store++ + ".map"), 2, RING);
                        JournalWriter journal = v == 0 ? null : JournalWriter.open(journalDir)) {
                    MailboxHandle handle = mailboxes.allocate(new MailboxId("bench", "cpu", 0), ProtocolMode.STICKY);
                    boolean single = v == 2;
                    RingDrainer drainer = v == 0 ? null : new RingDrainer(e -> {
                        if (single && e instanceof MailboxTransitionBatch b) {
                            b.transitions().forEach(journal::append);
                        } else {
                            journal.append(e);
                        }
                    });
                    long cpu = process.getProcessCpuTime();
                    if (drainer != null) {
                        drainer.register(handle);
                        drainer.start(dev.vigil.pool.Orchestrator.DRAIN_PERIOD, () -> 0L);
                    }
                    MappedMailbox mailbox = handle.mailbox();
                    long word = mailbox.stateAcquire();
                    int[] control = {MailboxState.CONTROL_REQUEST, MailboxState.CONTROL_DONE, MailboxState.IDLE};
                    for (int i = 0; i < transitions; i++) {
                        word = mailbox.casTransition(word, control[i % 3], i % 3 == 1 ? WriterRole.CHILD : WriterRole.PARENT, 1);
                        if (i % 3 == 2 && drainer != null) {
                            drainer.commandCompleted(handle);
                        }
                    }
                    if (drainer != null) {
                        drainer.close();
                        drainer.drainFinal(handle, 0);
                        journal.flush();
                    }
                    nanos[v] = (double) (process.getProcessCpuTime() - cpu) / transitions;
                }
            }
        }
        return String.format(Locale.ROOT, "journaling CPU per transition, all threads, one in-process writer, %d transitions: off %.0f ns,"
                + " packed %.0f ns (+%.0f ns), one event each %.0f ns (+%.0f ns)%n", transitions, nanos[0], nanos[1],
                nanos[1] - nanos[0], nanos[2], nanos[2] - nanos[0]);
    }

    /**
     * What journaling's own threads cost at a set rate, whatever the load: one thread of this JVM makes transitions in a
     * flow-controlled mailbox of its own at {@code rate} a second (paced, a control's three then the command path's
     * completion call), the drainer journaling into a real JournalWriter; the drainer's and the appender's CPU and how
     * often each was given a CPU, per second.
     */
    private String pacedCost() throws Exception {
        long rate = Long.getLong("vigil.bench.pacedRate", 2_000_000);
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "journaling's threads at a paced %.1f M transitions/s (one"
                + " in-process writer, %d s a pass, after one of warm-up), per second: CPU ms (times given a CPU):%n", rate / 1e6,
                Long.getLong("vigil.bench.pacedSeconds", 3)));
        for (int pass = 0; pass <= 3; pass++) {
            String line = pacedCost(rate);
            if (pass > 0) {
                out.append(line);
            }
        }
        return out.toString();
    }

    private String pacedCost(long rate) throws Exception {
        long seconds = Long.getLong("vigil.bench.pacedSeconds", 3);
        long transitions = rate * seconds;
        Path journalDir = dir.resolve("paced-journal-" + store);
        try (MailboxStore mailboxes = MailboxStore.createOrOpen(dir.resolve("paced-" + store++ + ".map"), 2, RING);
                JournalWriter journal = JournalWriter.open(journalDir)) {
            MailboxHandle handle = mailboxes.allocate(new MailboxId("bench", "paced", 0), ProtocolMode.STICKY);
            RingDrainer drainer = new RingDrainer(journal::append);
            drainer.register(handle);
            drainer.start(dev.vigil.pool.Orchestrator.DRAIN_PERIOD, () -> 0L);
            Map<Integer, Object[]> before = ThreadCpu.snapshot(true);
            MappedMailbox mailbox = handle.mailbox();
            long word = mailbox.stateAcquire();
            int[] control = {MailboxState.CONTROL_REQUEST, MailboxState.CONTROL_DONE, MailboxState.IDLE};
            long start = System.nanoTime();
            for (long i = 0; i < transitions; i++) {
                if (i % 3 == 0) {
                    long due = start + i * 1_000_000_000L / rate;
                    while (System.nanoTime() - due < 0) {
                        Thread.onSpinWait();
                    }
                }
                word = mailbox.casTransition(word, control[(int) (i % 3)], i % 3 == 1 ? WriterRole.CHILD : WriterRole.PARENT, 1);
                if (i % 3 == 2) {
                    drainer.commandCompleted(handle);
                }
            }
            long wall = System.nanoTime() - start;
            Map<Integer, Object[]> after = ThreadCpu.snapshot(false);
            drainer.close();
            drainer.drainFinal(handle, 0);
            journal.flush();
            long[] cpu = new long[KINDS.length];
            long[] runs = new long[KINDS.length];
            ThreadCpu.between(before, after).forEach((name, n) -> cpu[kind(name)] += n);
            ThreadCpu.slicesBetween(before, after).forEach((name, n) -> runs[kind(name)] += n);
            return String.format(Locale.ROOT, "  %.2f M/s reached: drainer %5.1f (%4.0f), appender %5.1f (%4.0f), GC %4.1f, JIT %5.1f%n",
                    transitions * 1e3 / wall, cpu[2] * 1e3 / wall, runs[2] * 1e9 / wall, cpu[3] * 1e3 / wall, runs[3] * 1e9 / wall,
                    cpu[4] * 1e3 / wall, cpu[5] * 1e3 / wall);
        }
    }

    /** The drainer thread's CPU with 16 registered, idle children for 10 s. */
    private String idleDrainer() throws Exception {
        List<SpawnedChild> spawned = new ArrayList<>();
        try (MailboxStore mailboxes = MailboxStore.createOrOpen(dir.resolve("idle.map"), 17, RING);
                JournalWriter journal = JournalWriter.open(dir.resolve("idle-journal"));
                RingDrainer drainer = new RingDrainer(journal::append)) {
            List<MailboxHandle> handles = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                MailboxHandle handle = mailboxes.allocate(new MailboxId("bench", "idle", i), ProtocolMode.STICKY);
                handles.add(handle);
                spawned.add(SpawnedChild.spawn(ChildKind.C.argv(List.of()), ChildKind.C.env(handle, DemoBehaviour.DEFAULT),
                        dir.resolve("idle.log")));
                drainer.register(handle);
            }
            for (MailboxHandle handle : handles) {
                handle.awaitInit(Duration.ofSeconds(30));
            }
            drainer.start(dev.vigil.pool.Orchestrator.DRAIN_PERIOD, () -> 0L);
            Thread.sleep(1000);
            long cpu = drainer.backgroundCpuNanos();
            long start = System.nanoTime();
            Thread.sleep(10_000);
            long used = drainer.backgroundCpuNanos() - cpu;
            long wall = System.nanoTime() - start;
            for (MailboxHandle handle : handles) {
                handle.publishShutdown(1);
            }
            summary.add(new BenchSummary("ring drainer CPU, 16 idle children, 10 s", String.format(Locale.ROOT,
                    "%.4f %% of a core", 100.0 * used / wall), "", "", "<= 0.1 % of a core", used <= 0.001 * wall).line());
            return String.format(Locale.ROOT, "drainer CPU, 16 idle children, 10 s: %.4f%% of a core (%.2f ms)%n", 100.0 * used / wall, used / 1e6);
        } finally {
            for (SpawnedChild child : spawned) {
                child.awaitExit(Duration.ofSeconds(10));
                child.close();
            }
        }
    }
}
