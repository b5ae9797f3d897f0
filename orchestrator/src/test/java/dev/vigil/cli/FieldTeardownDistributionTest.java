package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;

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
}
