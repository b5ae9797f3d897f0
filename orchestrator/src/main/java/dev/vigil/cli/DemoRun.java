package dev.vigil.cli;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.vigil.child.demo.DemoBehaviour;

/**
 * The embedded default run ({@code vigil demo}): three racks of C, Java and Python chips closing at once,
 * over a few cycles, each group's teardown time drawn every cycle from the field distribution
 * ({@link FieldTeardownDistribution}) and scaled; one control left in flight at every close, so the
 * legacy protocol loses its shutdown requests exactly as the upstream runner did.
 */
public final class DemoRun {
    /** Every control takes this long inside the child: the window in which a close can race it. */
    static final long HANDLER_DELAY_MICROS = 250_000;

    private DemoRun() {
    }

    public static RunSpec spec(String protocol, int cycles, String journalDir) {
        RunSpec.Workload workload = new RunSpec.Workload(3, 5_000, true);
        Map<String, String> env = Map.of(DemoBehaviour.DELAY_MICROS, Long.toString(HANDLER_DELAY_MICROS));
        List<RunSpec.PoolEntry> pools = List.of("rack-a", "rack-b", "rack-c").stream()
                .map(id -> new RunSpec.PoolEntry(id, List.of(
                        new RunSpec.Group("c-chips", "c", List.of(), 3, null, env, "TERM"),
                        new RunSpec.Group("java-chips", "java", List.of(), 1, null, env, "TERM"),
                        new RunSpec.Group("py-chips", "python", List.of(), 1, null, env, "TERM")), workload))
                .toList();
        RunSpec.Close close = new RunSpec.Close(1_000, 0, 0, "term-then-kill", 500, 3);
        return new RunSpec(journalDir, protocol, cycles, close, pools);
    }

    /** Draws each group's teardown time per cycle from the field distribution, scaled by {@code timeScale}. */
    public static RunHooks teardownDraws(double timeScale, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        return (cycle, pool, group, spec) -> {
            long millis;
            synchronized (random) {
                millis = FieldTeardownDistribution.sampleMillis(random, timeScale);
            }
            return spec.withEnv(DemoBehaviour.TEARDOWN_MILLIS, Long.toString(millis));
        };
    }
}
