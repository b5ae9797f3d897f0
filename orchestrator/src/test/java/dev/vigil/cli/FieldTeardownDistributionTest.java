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
}
