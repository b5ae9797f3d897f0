package dev.vigil.cli;

import java.util.random.RandomGenerator;

/**
 * Teardown times of healthy children as measured in the field (DESIGN section 1: a 6-device pool,
 * 19 closes: min 0.198 s, median 1.411 s, p90 1.603 s, max 1.778 s), sampled by inverse transform
 * over those quantiles with linear interpolation between them.
 */
public final class FieldTeardownDistribution {
    private static final double[] QUANTILES = {0.0, 0.5, 0.9, 1.0};
    private static final double[] SECONDS = {0.198, 1.411, 1.603, 1.778};

    private FieldTeardownDistribution() {
    }

    /** Seconds at quantile {@code q} in [0, 1]. */
    public static double secondsAt(double q) {
        if (q < 0 || q > 1) {
            throw new IllegalArgumentException("quantile=" + q + " must be in [0, 1]");
        }
        for (int i = 1; i < QUANTILES.length; i++) {
            if (q <= QUANTILES[i]) {
                double f = (q - QUANTILES[i - 1]) / (QUANTILES[i] - QUANTILES[i - 1]);
                return SECONDS[i - 1] + f * (SECONDS[i] - SECONDS[i - 1]);
            }
        }
        return SECONDS[SECONDS.length - 1];
    }

    /**
     * {@code n} teardown times in milliseconds, scaled, in random order: the distribution's values at
     * {@code n} evenly spaced quantiles (0, 1/(n-1), ..., 1), so that a run of {@code n} children shows
     * the field's min, median, p90 and max themselves, not a sample's scatter around them (stratified
     * sampling; the order is drawn from {@code random}).
     */
    public static long[] spreadMillis(int n, RandomGenerator random, double timeScale) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = Math.round(secondsAt(n == 1 ? 0.5 : (double) i / (n - 1)) * 1000.0 * timeScale);
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            long t = out[i];
            out[i] = out[j];
            out[j] = t;
        }
        return out;
    }

    /** One teardown time in milliseconds, scaled by {@code timeScale} (0.1 = ten times faster). */
    public static long sampleMillis(RandomGenerator random, double timeScale) {
        return Math.round(secondsAt(random.nextDouble()) * 1000.0 * timeScale);
    }
}
