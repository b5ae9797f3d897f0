package dev.vigil.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import dev.vigil.journal.JournalReader;

/**
 * The replay benchmark (not part of the test run): writes a journal of N events (default
 * 10,000,000) of realistic pools (spawn, many tasks, close) through the real JournalWriter, then
 * runs the real launcher under /usr/bin/time: {@code stats} over the whole journal (events/s, cpu,
 * peak RSS), {@code show} of one close in the middle (seconds), and {@code closes} (which reads
 * every event header). Side by side, as baselines in the same run: a bare header-only scan of the
 * same journal in this JVM (no event decoded) and the launcher's JVM start alone.
 *
 * <pre>
 * mvn -B -q package -pl replay-tool -am -DskipTests
 * java @replay-tool/target/jvm.options -cp replay-tool/target/test-classes:replay-tool/target/classes:$(cat replay-tool/target/test-classpath.txt) \
 *     dev.vigil.replay.ReplayBenchmark /tmp/vigil-bench-journal 10000000
 * </pre>
 */
public final class ReplayBenchmark {
    private ReplayBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/vigil-bench-journal");
        long target = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
        Path root = Path.of(System.getProperty("vigil.root", ".")).toAbsolutePath();
        long closes;
        if (Files.exists(dir)) {
            System.out.println("reusing journal " + dir);
            closes = -1;
        } else {
            long t = System.nanoTime();
            long[] written = generate(dir, target);
            closes = written[1];
            double s = (System.nanoTime() - t) / 1e9;
            System.out.printf(Locale.ROOT, "generated %,d events, %,d closes in %.1f s (%.2f M events/s written)%n",
                    written[0], written[1], s, written[0] / s / 1e6);
        }
        long events = countAndTimeRawScan(dir);
        if (closes < 0) {
            closes = countCloses(dir);
        }
        Path launcher = root.resolve("bin/vigil-replay");
        System.out.println("load average before: " + Files.readString(Path.of("/proc/loadavg")).trim());
        // the first journal command after a build also writes the launcher's class-data-sharing archive
        Measured first = run(launcher, "stats", "--summary", dir.toString());
        System.out.printf(Locale.ROOT, "stats, first run (writes the CDS archive): %.2f s wall, %.2f s cpu%n", first.seconds,
                first.cpuSeconds);
        for (int i = 1; i <= 3; i++) {
            Measured stats = run(launcher, "stats", "--summary", dir.toString());
            System.out.printf(Locale.ROOT, "stats run %d: %.2f s wall (%.2f M events/s), %.2f s cpu (%.2f M events per cpu-s), "
                    + "peak RSS %d MB%n", i, stats.seconds, events / stats.seconds / 1e6, stats.cpuSeconds,
                    events / stats.cpuSeconds / 1e6, stats.peakRssKb / 1024);
            if (i == 3) {
                System.out.print(stats.output);
            }
        }
        long middle = Math.max(1, closes / 2);
        for (int i = 1; i <= 3; i++) {
            Measured show = run(launcher, "show", dir.toString(), Long.toString(middle));
            System.out.printf(Locale.ROOT, "show close %d run %d: %.2f s wall, %.2f s cpu, peak RSS %d MB%n", middle, i,
                    show.seconds, show.cpuSeconds, show.peakRssKb / 1024);
        }
        Measured full = run(launcher, "closes", dir.toString());
        System.out.printf(Locale.ROOT, "closes (reads every event header, decodes 2 kinds): %.2f s wall (%.2f M events/s), "
                + "%.2f s cpu, peak RSS %d MB%n", full.seconds, events / full.seconds / 1e6, full.cpuSeconds,
                full.peakRssKb / 1024);
        Measured version = run(launcher, "--version");
        System.out.printf(Locale.ROOT, "launcher --version (JVM start only): %.2f s wall, %.2f s cpu, peak RSS %d MB%n",
                version.seconds, version.cpuSeconds, version.peakRssKb / 1024);
        System.out.println("load average after: " + Files.readString(Path.of("/proc/loadavg")).trim());
    }

    /** Writes pools of 6 children (two groups), 40 tasks per child, one close each; every other close overlaps the next. */
    static long[] generate(Path dir, long target) {
        long closes = 0;
        try (ScenarioJournal j = new ScenarioJournal(dir, 10_000)) {
            int n = 0;
            while (j.written() < target) {
                ScenarioJournal.Pool a = j.pool("pool-" + n++, "sticky", "chips", 4, "hosts", 2);
                ScenarioJournal.Pool b = j.pool("pool-" + n++, "sticky", "chips", 2, "hosts", 2);
                for (int task = 0; task < 40; task++) {
                    for (ScenarioJournal.Child c : a.children) {
                        a.task(c, 0.5);
                    }
                    for (ScenarioJournal.Child c : b.children) {
                        b.task(c, 0.5);
                    }
                }
                ScenarioJournal.Close ca = a.close(Scenarios.LEAK, 0).broadcast();
                ScenarioJournal.Close cb = b.close(Scenarios.LEAK, 1).broadcast();
                for (int i = 0; i < a.children.size(); i++) {
                    ca.exits(a.child(i), 150 + (i * 97) % 1300, 0);
                    if (i < b.children.size()) {
                        cb.exits(b.child(i), 180 + (i * 131) % 1500, 0);
                    }
                }
                ca.complete();
                cb.complete();
                closes += 2;
            }
            return new long[] {j.written(), closes};
        }
    }

    private static long countAndTimeRawScan(Path dir) {
        long t = System.nanoTime();
        long excerpts;
        long[] counted = {0};
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().read(type -> {
                counted[0]++;
                return false;
            }, (i, e) -> true);
            excerpts = counted[0];
        }
        double s = (System.nanoTime() - t) / 1e9;
        System.out.printf(Locale.ROOT, "baseline, header-only scan in this JVM: %,d events in %.2f s -> %.2f M events/s%n",
                excerpts, s, excerpts / s / 1e6);
        return excerpts;
    }

    private static long countCloses(Path dir) {
        long[] n = {0};
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().read(type -> type == dev.vigil.journal.EventType.CLOSE_STARTED, (i, e) -> {
                n[0]++;
                return true;
            });
        }
        return n[0];
    }

    private record Measured(double seconds, double cpuSeconds, long peakRssKb, String output) {
    }

    private static Measured run(Path launcher, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-v", launcher.toString()));
        cmd.addAll(List.of(args));
        Path err = Files.createTempFile("vigil-bench", ".err");
        long t = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IllegalStateException("timed out: " + cmd);
        }
        double s = (System.nanoTime() - t) / 1e9;
        long rss = -1;
        double cpu = 0;
        for (String line : Files.readAllLines(err)) {
            String value = line.substring(line.lastIndexOf(':') + 1).trim();
            if (line.contains("Maximum resident set size")) {
                rss = Long.parseLong(value);
            } else if (line.contains("User time (seconds)") || line.contains("System time (seconds)")) {
                cpu += Double.parseDouble(value);
            }
        }
        Files.delete(err);
        if (p.exitValue() != 0) {
            throw new IllegalStateException("exit " + p.exitValue() + ": " + cmd + "\n" + out);
        }
        return new Measured(s, cpu, rss, out.length() > 2000 ? out.substring(0, 2000) : out);
    }
}
