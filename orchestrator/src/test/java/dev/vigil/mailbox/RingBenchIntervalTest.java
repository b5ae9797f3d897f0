package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The ring bench's interval of a median ratio ({@link RingFlowControlBenchmark#medianInterval}): which ranks it takes. */
class RingBenchIntervalTest {

    @Test
    void thirtyRoundsGiveTheValuesOfRanksNineAndTwentyTwo() {
        assertArrayEquals(new double[] {9, 22}, RingFlowControlBenchmark.medianInterval(shuffled(30)));
        assertArrayEquals(new double[] {40, 61}, RingFlowControlBenchmark.medianInterval(shuffled(100)));
    }

    @Test
    void tooFewRoundsGiveNoInterval() {
        double[] interval = RingFlowControlBenchmark.medianInterval(shuffled(5));
        assertTrue(Double.isNaN(interval[0]) && Double.isNaN(interval[1]), "5 rounds: " + interval[0] + "-" + interval[1]);
    }

    /** 1..n in a fixed random order. */
    private static double[] shuffled(int n) {
        List<Double> values = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            values.add((double) i);
        }
        Collections.shuffle(values, new Random(7));
        return values.stream().mapToDouble(Double::doubleValue).toArray();
    }
}
