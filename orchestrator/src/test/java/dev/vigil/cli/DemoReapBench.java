package dev.vigil.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.bench.BenchSummary;

import org.HdrHistogram.Histogram;

/**
 * The demo's reap latencies against the field's (bin/vigil-bench demo): {@code vigil demo --time-scale 1 --seed S}
 * run in this JVM as the CLI runs it (same spec, same draws, same close settings), its broadcast-to-reap latencies
 * (children that exited on their own) beside the field distribution they are drawn from (DESIGN section 1: min
 * 0.198 s, median 1.411 s, p90 1.603 s, max 1.778 s), overall and per runtime, with the exit cost per runtime the
 * demo measured and subtracted. Usage: DemoReapBench [seed [cycles]]. Prints a markdown section and a summary row.
 */
public final class DemoReapBench {
    private static final double[] FIELD = {0.198, 1.411, 1.603, 1.778};
    private static final String[] NAMES = {"min", "median", "p90", "max"};
    private static final double TOLERANCE = 0.10;

    private DemoReapBench() {
    }

    public static void main(String[] args) throws Exception {
        long seed = args.length > 0 ? Long.parseLong(args[0]) : 1;
        int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path work = Files.createTempDirectory("vigil-demo-bench-");
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        PoolRunner runner = new PoolRunner(DemoRun.spec("sticky", cycles, work.resolve("journal").toString()),
                DemoRun.hooks("sticky", cycles, 1.0, seed), new PrintStream(output, true, StandardCharsets.UTF_8));
        int status = runner.run();
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        String printed = output.toString(StandardCharsets.UTF_8);
        if (status != PoolRunner.CLEAN) {
            throw new IllegalStateException("the demo did not end clean (status " + status + "):\n" + printed);
        }
        List<CloseReport> reports = runner.reports();
        Histogram all = LatencyTable.reapLatencies(reports, c -> true);
        double[] got = quantiles(all);
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "`bin/vigil demo --time-scale 1 --seed %d --cycles %d` run in the bench's JVM: %d closes, %d"
                + " reaps, %d cpus; load before: %s; after: %s.%n%n", seed, cycles, reports.size(), all.getTotalCount(),
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter));
        md.append("| reap latency, broadcast to reap (s) | demo | field (baseline) | demo / field | target | met? |\n|---|---:|---:|---:|---|---|\n");
        double worst = 0;
        boolean met = true;
        for (int i = 0; i < 4; i++) {
            double deviation = got[i] / FIELD[i] - 1;
            boolean ok = Math.abs(deviation) <= TOLERANCE;
            met &= ok;
            worst = Math.abs(deviation) > Math.abs(worst) ? deviation : worst;
            md.append(String.format(Locale.ROOT, "| %s | %.3f | %.3f | %+.1f %% | within 10 %% | %s |%n", NAMES[i], got[i], FIELD[i],
                    deviation * 100, ok ? "yes" : "**no**"));
        }
        md.append("\n| runtime | reaps | min | median | p90 | max |\n|---|---:|---:|---:|---:|---:|\n");
        for (String kind : List.of("C", "JAVA", "PYTHON")) {
            Histogram h = LatencyTable.reapLatencies(reports, c -> c.kind().equals(kind));
            if (h.getTotalCount() > 0) {
                double[] q = quantiles(h);
                md.append(String.format(Locale.ROOT, "| %s | %d | %.3f | %.3f | %.3f | %.3f |%n", kind.toLowerCase(Locale.ROOT),
                        h.getTotalCount(), q[0], q[1], q[2], q[3]));
            }
        }
        md.append("\nThe demo's own lines on the exit cost it measured per runtime (broadcast to reap beyond the teardown"
                + " a child was given) and took off the next cycle's teardowns:\n\n```\n");
        printed.lines().filter(l -> l.contains("exit cost per runtime")).forEach(l -> md.append(l.strip()).append('\n'));
        md.append("```\n");
        System.out.print(md);
        System.out.println();
        new BenchSummary("`vigil demo --time-scale 1`: reap latency min / median / p90 / max, s",
                String.format(Locale.ROOT, "%.3f / %.3f / %.3f / %.3f", got[0], got[1], got[2], got[3]),
                String.format(Locale.ROOT, "the field's %.3f / %.3f / %.3f / %.3f", FIELD[0], FIELD[1], FIELD[2], FIELD[3]),
                String.format(Locale.ROOT, "worst %+.1f %%", worst * 100), "each within 10 %", met).print(System.out);
    }

    private static double[] quantiles(Histogram h) {
        return new double[] {h.getMinValue() / 1e6, h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(90) / 1e6,
                h.getMaxValue() / 1e6};
    }
}
