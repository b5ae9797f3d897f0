package dev.vigil.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.pool.ChildSpec;

/**
 * The embedded default run ({@code vigil demo}): four racks of three C chips, a Java and a Python chip,
 * closing at once, over a few cycles. Every child's teardown time is drawn on its own from the field
 * distribution ({@link FieldTeardownDistribution}) and scaled; a few chips have a control still
 * running when their pool closes ({@link #hooks}).
 *
 * <p>A draw is the time from the close's broadcast to the child's reap, as the field measured it, not the
 * length of the child's finalization alone: what a runtime spends around it (the close reaching the child,
 * the process's own exit and the reap: about 1 ms for C, tens of ms for a JVM or a Python interpreter, more
 * under load) is part of the draw. The demo measures that cost per runtime on its own closes (broadcast to
 * reap minus the finalization the child was given) and gives each later child its draw minus the least
 * cost its runtime has shown so far: a floor, so one slow exit on a loaded machine (a few hundred ms) never
 * makes the later children reap before their draws; the first cycle, with nothing measured yet, gets the
 * draws whole.
 */
public final class DemoRun {
    /** Every control takes this long inside the child. */
    static final long HANDLER_DELAY_MICROS = 10_000;
    static final List<String> RACKS = List.of("rack-a", "rack-b", "rack-c", "rack-d");
    static final int C_CHIPS = 3;
    static final int JAVA_CHIPS = 1;
    static final int PY_CHIPS = 1;
    /** One child in this many has a control running when its pool closes. */
    static final int IN_FLIGHT_SHARE = 30;
    /** How long that control runs: longer than a close takes to reach its broadcast, even on a loaded machine. */
    static final long IN_FLIGHT_MILLIS = 1_000;

    private DemoRun() {
    }

    public static RunSpec spec(String protocol, int cycles, String journalDir) {
        RunSpec.Workload workload = new RunSpec.Workload(3, 5_000, false);
        Map<String, String> env = Map.of(DemoBehaviour.DELAY_MICROS, Long.toString(HANDLER_DELAY_MICROS));
        List<RunSpec.PoolEntry> pools = RACKS.stream()
                .map(id -> new RunSpec.PoolEntry(id, List.of(
                        new RunSpec.Group("c-chips", "c", List.of(), C_CHIPS, null, env, "TERM"),
                        new RunSpec.Group("java-chips", "java", List.of(), JAVA_CHIPS, null, env, "TERM"),
                        new RunSpec.Group("py-chips", "python", List.of(), PY_CHIPS, null, env, "TERM")), workload))
                .toList();
        RunSpec.Close close = new RunSpec.Close(1_000, 0, 0, "term-then-kill", 500, RACKS.size());
        return new RunSpec(journalDir, protocol, cycles, close, pools);
    }

    /** Children the demo starts over {@code cycles} cycles. */
    static int children(int cycles) {
        return cycles * RACKS.size() * (C_CHIPS + JAVA_CHIPS + PY_CHIPS);
    }

    /**
     * The demo's per-child choices, all drawn from {@code seed}: each child's own teardown time (the
     * field distribution at evenly spaced quantiles over all the run's children, shuffled,
     * {@link FieldTeardownDistribution#spreadMillis}, scaled by {@code timeScale}), and which children
     * still have a control running when their pool closes (legacy protocol only, so that a sticky
     * run's reap latencies are the teardown draws): one in {@link #IN_FLIGHT_SHARE} of the run's
     * children (at least one), each a {@value #IN_FLIGHT_MILLIS} ms device call
     * ({@link DemoHandler#OP_BLOCKING_SLEEP}). Under the legacy protocol exactly those lose their
     * shutdown; so closes fail now and then, mostly with one survivor, as in the field.
     */
    public static RunHooks hooks(String protocol, int cycles, double timeScale, long seed) {
        boolean legacy = protocol.equals("legacy");
        SplittableRandom random = new SplittableRandom(seed);
        int n = children(cycles);
        long[] draws = FieldTeardownDistribution.spreadMillis(n, random, timeScale);
        boolean[] inFlight = new boolean[n];
        for (int k = Math.max(1, Math.round((float) n / IN_FLIGHT_SHARE)); k > 0; ) {
            int slot = random.nextInt(n);
            if (!inFlight[slot]) {
                inFlight[slot] = true;
                k--;
            }
        }
        long[] given = new long[n];
        Map<String, List<Long>> exitCosts = new TreeMap<>();
        return new RunHooks() {
            @Override
            public ChildSpec childSpec(int cycle, String pool, String group, int index, ChildSpec spec) {
                int slot = slot(cycle, pool, group, index);
                long teardown;
                synchronized (exitCosts) {
                    teardown = Math.max(0, draws[slot] - leastMillis(exitCosts.get(spec.kind().name())));
                    given[slot] = teardown;
                }
                return spec.withEnv(DemoBehaviour.TEARDOWN_MILLIS, Long.toString(teardown));
            }

            @Override
            public void cycleClosed(int cycle, List<CloseReport> reports, PrintStream out) {
                synchronized (exitCosts) {
                    for (CloseReport r : reports) {
                        for (CloseReport.Child c : r.children()) {
                            if (c.outcome() == CloseReport.ChildOutcome.EXITED && c.sinceBroadcastNanos() > 0) {
                                long cost = c.sinceBroadcastNanos() / 1_000_000 - given[slot(cycle, r.poolId(), c.group(), c.index())];
                                exitCosts.computeIfAbsent(c.kind(), k -> new ArrayList<>()).add(cost);
                            }
                        }
                    }
                    if (cycle < cycles && !exitCosts.isEmpty()) {
                        StringBuilder line = new StringBuilder("  exit cost per runtime so far, broadcast to reap beyond the teardown"
                                + " (least / median; the next cycle's teardowns are shortened by the least):");
                        exitCosts.forEach((kind, costs) -> line.append(' ').append(kind.toLowerCase(Locale.ROOT)).append(' ')
                                .append(leastMillis(costs)).append(" / ").append(medianMillis(costs)).append(" ms"));
                        out.println(line);
                    }
                }
            }

            @Override
            public InFlight inFlight(int cycle, String pool, String group, int index, RunSpec.Workload workload) {
                return legacy && inFlight[slot(cycle, pool, group, index)]
                        ? new InFlight(DemoHandler.OP_BLOCKING_SLEEP, IN_FLIGHT_MILLIS) : null;
            }
        };
    }

    /** The least of {@code millis}, 0 for none (or below 0: a child reaped early by the clock's grain). */
    static long leastMillis(List<Long> millis) {
        return millis == null ? 0 : Math.max(0, millis.stream().mapToLong(Long::longValue).min().orElse(0));
    }

    /** The median of {@code millis}, 0 for none. */
    static long medianMillis(List<Long> millis) {
        if (millis == null || millis.isEmpty()) {
            return 0;
        }
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    /** Each child of the run its own slot: cycle, rack, then c-chips, java-chips, py-chips. */
    static int slot(int cycle, String pool, String group, int index) {
        int perRack = C_CHIPS + JAVA_CHIPS + PY_CHIPS;
        int inRack = switch (group) {
            case "c-chips" -> index;
            case "java-chips" -> C_CHIPS + index;
            default -> C_CHIPS + JAVA_CHIPS + index;
        };
        return ((cycle - 1) * RACKS.size() + RACKS.indexOf(pool)) * perRack + inRack;
    }
}
