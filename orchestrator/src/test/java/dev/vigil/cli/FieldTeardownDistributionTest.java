package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.pool.ChildSpec;

import org.junit.jupiter.api.Test;

class FieldTeardownDistributionTest {

    @Test
    void quantilesMatchTheFieldMeasurements() {
        assertEquals(0.198, FieldTeardownDistribution.secondsAt(0.0), 1e-9);
        assertEquals(1.411, FieldTeardownDistribution.secondsAt(0.5), 1e-9);
        assertEquals(1.603, FieldTeardownDistribution.secondsAt(0.9), 1e-9);
        assertEquals(1.778, FieldTeardownDistribution.secondsAt(1.0), 1e-9);
    }

    @Test
    void samplesReproduceMedianAndP90AtTheGivenScale() {
        SplittableRandom r = new SplittableRandom(42);
        long[] ms = new long[20_000];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = FieldTeardownDistribution.sampleMillis(r, 0.1);
        }
        Arrays.sort(ms);
        assertEquals(141, ms[ms.length / 2], 3);
        assertEquals(160, ms[(int) (ms.length * 0.9)], 3);
        assertTrue(ms[0] >= 19 && ms[ms.length - 1] <= 178, "range " + ms[0] + ".." + ms[ms.length - 1]);
    }

    @Test
    void aRunsSpreadDrawsHitTheFieldQuantilesWithinTenPercent() {
        long[] ms = FieldTeardownDistribution.spreadMillis(DemoRun.children(3), new SplittableRandom(7), 1.0);
        long[] sorted = ms.clone();
        Arrays.sort(sorted);
        double[][] field = {{0.0, 198}, {0.5, 1411}, {0.9, 1603}, {1.0, 1778}};
        for (double[] q : field) {
            long got = sorted[(int) Math.round(q[0] * (sorted.length - 1))];
            assertEquals(q[1], got, q[1] * 0.10, "quantile " + q[0]);
        }
        assertTrue(!Arrays.equals(ms, sorted), "drawn in random order, not sorted");
    }

    @Test
    void theDemoGivesEveryChildItsOwnTeardownAndLeavesAFewControlsInFlight() {
        RunHooks hooks = DemoRun.hooks("legacy", 3, 1.0, 1);
        java.util.Set<String> teardowns = new java.util.HashSet<>();
        int inFlight = 0;
        RunSpec.Workload w = new RunSpec.Workload(3, 5000, false);
        for (int cycle = 1; cycle <= 3; cycle++) {
            for (String rack : DemoRun.RACKS) {
                for (int i = 0; i < DemoRun.C_CHIPS; i++) {
                    teardowns.add(hooks.childSpec(cycle, rack, "c-chips", i, dev.vigil.pool.ChildSpec.cDemo()).env()
                            .get(dev.vigil.child.demo.DemoBehaviour.TEARDOWN_MILLIS));
                    inFlight += hooks.inFlight(cycle, rack, "c-chips", i, w) == null ? 0 : 1;
                }
                inFlight += hooks.inFlight(cycle, rack, "java-chips", 0, w) == null ? 0 : 1;
                inFlight += hooks.inFlight(cycle, rack, "py-chips", 0, w) == null ? 0 : 1;
            }
        }
        assertTrue(teardowns.size() > 30, "per-child teardown times, distinct: " + teardowns.size());
        assertEquals(2, inFlight, "one child in 30 of the run's 60 has a control in flight at its close");
    }

    @Test
    void aLaterCyclesTeardownsAreTheDrawsLessTheLeastExitCostTheirRuntimeShowedFromTheBroadcast() {
        RunHooks hooks = DemoRun.hooks("sticky", 2, 1.0, 1);
        RunHooks untouched = DemoRun.hooks("sticky", 2, 1.0, 1);
        ChildSpec java = ChildSpec.java("Handler");
        ChildSpec c = ChildSpec.cDemo();
        List<CloseReport> reports = new ArrayList<>();
        for (String rack : DemoRun.RACKS) {
            // reaped 2 ms (C) and 30, 40, 50, 300 ms (Java: one slow exit) after the broadcast beyond the teardown given
            long javaCost = rack.equals("rack-d") ? 300 : 30 + 10 * DemoRun.RACKS.indexOf(rack);
            reports.add(new CloseReport(rack, 1, CloseReport.Outcome.CLEAN, 0, List.of(
                    reaped("c-chips", "C", teardown(hooks.childSpec(1, rack, "c-chips", 0, c)) + 2),
                    reaped("java-chips", "JAVA", teardown(hooks.childSpec(1, rack, "java-chips", 0, java)) + javaCost))));
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        hooks.cycleClosed(1, reports, new PrintStream(printed, true, StandardCharsets.UTF_8));
        assertTrue(printed.toString(StandardCharsets.UTF_8).contains("c 2 / 2 ms java 30 / 50 ms"), printed.toString(StandardCharsets.UTF_8));
        for (String rack : DemoRun.RACKS) {
            assertEquals(teardown(untouched.childSpec(2, rack, "java-chips", 0, java)) - 30, teardown(hooks.childSpec(2, rack, "java-chips", 0, java)),
                    "cycle 2's Java teardown: its draw less the least exit cost the Java children showed");
            assertEquals(teardown(untouched.childSpec(2, rack, "c-chips", 1, c)) - 2, teardown(hooks.childSpec(2, rack, "c-chips", 1, c)));
        }
    }

    private static long teardown(ChildSpec spec) {
        return Long.parseLong(spec.env().get(DemoBehaviour.TEARDOWN_MILLIS));
    }

    private static CloseReport.Child reaped(String group, String kind, long sinceBroadcastMillis) {
        return new CloseReport.Child(group, 0, 1, kind, CloseReport.ChildOutcome.EXITED, 0, 0, sinceBroadcastMillis * 1_000_000, null, null);
    }
}
