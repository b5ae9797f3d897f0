package dev.vigil.cli;

import dev.vigil.journal.bench.BenchSummary;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.JournalReader;

/**
 * Start and exit of {@code bin/vigil} (bin/vigil-bench start), each against its baseline in the same
 * run, rounds alternating so that load drifts hit every contender:
 * <ul>
 * <li>{@code bin/vigil --help}, launch to exit, against {@code java -version};</li>
 * <li>{@code bin/vigil run} of a one-child spec, launch to the journal's first {@code ChildSpawned}
 *     (CLOCK_MONOTONIC, the clock the harness stamps the launch with), against a plain
 *     {@code posix_spawnp} of the same child from C (native/build/vigil-spawn-stamp), and with the
 *     class-data archive turned off ({@code VIGIL_CDS=off});</li>
 * <li>the last {@code CloseCompleted} to the process's exit.</li>
 * </ul>
 * CPU (user + system of the whole process) comes from /usr/bin/time where it is installed.
 * Usage: StartExitBenchmark [rounds]. Prints a markdown section.
 */
public final class StartExitBenchmark {
    private static final Path ROOT = Path.of(System.getProperty("vigil.root", "."));
    private static final Path TIME = Path.of("/usr/bin/time");

    private StartExitBenchmark() {
    }

    /** One launch: wall ms (launch to exit), CPU ms (or NaN), and its output. */
    private record Launch(double wallMs, double cpuMs, long launchNanos, long exitNanos, String out) {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        Path work = dev.vigil.journal.TestFiles.tempTreeDeletedAtExit("vigil-start-bench-");
        Path spec = work.resolve("spec.json");
        Files.writeString(spec, "{\"pools\":[{\"id\":\"start-bench\",\"groups\":[{\"name\":\"g\",\"kind\":\"exec\","
                + "\"command\":[\"sleep\",\"30\"],\"children\":1}]}]}\n");
        String vigil = ROOT.resolve("bin/vigil").toString();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String stamp = ROOT.resolve("native/build/vigil-spawn-stamp").toString();
        Map<String, List<Double>> m = new java.util.LinkedHashMap<>();
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        for (int round = 0; round < rounds; round++) {
            add(m, "java -version, wall", launch(work, Map.of(), java, "-version").wallMs);
            Launch help = launch(work, Map.of(), vigil, "--help");
            add(m, "bin/vigil --help, wall", help.wallMs);
            add(m, "bin/vigil --help, cpu", help.cpuMs);
            Launch c = launch(work, Map.of(), stamp, "sleep", "30");
            add(m, "C posix_spawnp: launch to child spawned", (stampOf(c.out) - c.launchNanos) / 1e6);
            for (String cds : List.of("on", "off")) {
                Path journal = work.resolve("journal-" + cds + "-" + round);
                Launch run = launch(work, Map.of("VIGIL_CDS", cds), vigil, "run", spec.toString(), "--journal", journal.toString());
                if (!run.out.contains("closes: 1 (0 failed)")) {
                    throw new IllegalStateException("bin/vigil run failed:\n" + run.out);
                }
                long[] times = spawnedAndCompleted(journal);
                String label = cds.equals("on") ? "" : " (no class-data archive)";
                add(m, "bin/vigil run: launch to first child spawned" + label, (times[0] - run.launchNanos) / 1e6);
                add(m, "bin/vigil run: last close completed to exit" + label, (run.exitNanos - times[1]) / 1e6);
                add(m, "bin/vigil run: whole run, cpu" + label, run.cpuMs);
            }
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%d rounds, contenders alternating, %d cpus; load before: %s; after: %s. "
                + "Spec: one pool, one exec child (`sleep 30`), one close.%n%n", rounds,
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter));
        md.append("| measure | median ms | max ms | baseline (median ms) | ratio | target |\n|---|---:|---:|---|---:|---|\n");
        double javaVersion = median(m.get("java -version, wall"));
        double cSpawn = median(m.get("C posix_spawnp: launch to child spawned"));
        row(md, m, "bin/vigil --help, wall", "`java -version` " + fmt(javaVersion), javaVersion, "<= 400 ms idle");
        row(md, m, "bin/vigil --help, cpu", "", Double.NaN, "");
        row(md, m, "bin/vigil run: launch to first child spawned", "C `posix_spawnp` " + fmt(cSpawn), cSpawn, "<= 800 ms idle");
        row(md, m, "bin/vigil run: launch to first child spawned (no class-data archive)", "C `posix_spawnp` " + fmt(cSpawn), cSpawn, "");
        row(md, m, "bin/vigil run: last close completed to exit", "", Double.NaN, "<= 200 ms");
        row(md, m, "bin/vigil run: last close completed to exit (no class-data archive)", "", Double.NaN, "");
        row(md, m, "bin/vigil run: whole run, cpu", "", Double.NaN, "");
        row(md, m, "bin/vigil run: whole run, cpu (no class-data archive)", "", Double.NaN, "");
        System.out.print(md);
        summary(m, "bin/vigil --help, wall", "`java -version` " + fmt(javaVersion) + " ms", javaVersion, 400);
        summary(m, "bin/vigil run: launch to first child spawned", "C `posix_spawnp` " + fmt(cSpawn) + " ms", cSpawn, 800);
        summary(m, "bin/vigil run: last close completed to exit", "", Double.NaN, 200);
    }

    private static void summary(Map<String, List<Double>> m, String name, String baseline, double base, double targetMs) {
        double med = median(m.get(name));
        new BenchSummary(name + " (median; one exec child)", fmt(med) + " ms", baseline,
                Double.isNaN(base) ? "" : BenchSummary.ratio(med / base), "<= " + fmt(targetMs) + " ms on an idle machine",
                med <= targetMs).print(System.out);
    }

    private static void row(StringBuilder md, Map<String, List<Double>> m, String name, String baseline, double base, String target) {
        List<Double> v = m.get(name);
        if (v == null || v.stream().allMatch(d -> d.isNaN())) {
            md.append("| ").append(name).append(" | n/a (no /usr/bin/time) | | | | |\n");
            return;
        }
        double med = median(v);
        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", name, fmt(med),
                fmt(v.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)), baseline,
                Double.isNaN(base) ? "" : String.format(Locale.ROOT, "%.1fx", med / base), target));
    }

    private static String fmt(double ms) {
        return String.format(Locale.ROOT, "%.1f", ms);
    }

    private static void add(Map<String, List<Double>> m, String name, double v) {
        m.computeIfAbsent(name, k -> new ArrayList<>()).add(v);
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        return a.length == 0 ? Double.NaN : a[a.length / 2];
    }

    /** Starts a command (under /usr/bin/time where present), waits for it (bounded), returns its timings. */
    private static Launch launch(Path work, Map<String, String> env, String... cmd) throws IOException, InterruptedException {
        Path cpu = work.resolve("cpu.txt");
        Files.deleteIfExists(cpu);
        List<String> full = new ArrayList<>();
        boolean timed = Files.isExecutable(TIME);
        if (timed) {
            full.addAll(List.of(TIME.toString(), "-f", "%U %S", "-o", cpu.toString()));
        }
        full.addAll(List.of(cmd));
        Path out = work.resolve("out.txt");
        ProcessBuilder pb = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().putAll(env);
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("did not end within 180 s: " + String.join(" ", cmd));
        }
        long t1 = System.nanoTime();
        double cpuMs = Double.NaN;
        if (timed && Files.exists(cpu)) {
            String[] f = Files.readString(cpu).trim().split("\\s+");
            cpuMs = (Double.parseDouble(f[f.length - 2]) + Double.parseDouble(f[f.length - 1])) * 1000;
        }
        return new Launch((t1 - t0) / 1e6, cpuMs, t0, t1, Files.readString(out, StandardCharsets.UTF_8));
    }

    private static long stampOf(String out) {
        for (String line : out.split("\n")) {
            if (line.startsWith("spawned ")) {
                return Long.parseLong(line.split(" ")[1]);
            }
        }
        throw new IllegalStateException("vigil-spawn-stamp printed no stamp: " + out);
    }

    /** {first ChildSpawned time, last CloseCompleted time} of a journal. */
    private static long[] spawnedAndCompleted(Path journal) {
        long[] t = {Long.MAX_VALUE, Long.MIN_VALUE};
        try (JournalReader r = JournalReader.open(journal)) {
            r.readAll((i, e) -> {
                if (e instanceof ChildSpawned s) {
                    t[0] = Math.min(t[0], s.timeNanos());
                } else if (e instanceof CloseCompleted c) {
                    t[1] = Math.max(t[1], c.timeNanos());
                }
                return true;
            });
        }
        return t;
    }
}
