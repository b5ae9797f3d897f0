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
import dev.vigil.journal.bench.BenchSummary;
import dev.vigil.journal.bench.DecodeRateBench;

/**
 * The replay benchmark (not part of the test run; {@code bin/vigil-bench replay} runs it and puts its output into
 * docs/BENCHMARKS.md): writes a journal of N events (default 10,000,000) of realistic pools (spawn, many tasks,
 * close) through the real JournalWriter, then runs whole processes under /usr/bin/time: {@code stats} over the
 * whole journal (events/s, cpu, peak RSS), {@code show} of one close in the middle, {@code closes} (reads every
 * event header), each through the real launcher; side by side, in the same run, the baselines: {@code stats} and
 * {@code show} read by Chronicle's tailer alone ({@code -Dvigil.journal.reader=chronicle}: the read path before
 * the plain reader), a raw Chronicle tailer reading every excerpt of the same journal in a process of its own
 * with the launcher's JVM flags, and the launcher's JVM start alone. Then the read path in one warm JVM ({@code DecodeRateBench}): ns and bytes
 * allocated per event, raw tailer against header-only and full decode. Rows for the summary table last.
 *
 * <pre>
 * bin/vigil-bench replay      # or, after mvn -B -q package -DskipTests:
 * java @replay-tool/target/jvm.options -Dvigil.root=$PWD -cp "$(test class path of replay-tool)" \
 *     dev.vigil.replay.ReplayBenchmark /tmp/vigil-bench-journal 10000000
 * </pre>
 */
public final class ReplayBenchmark {
    /** The launcher's JVM flags that decide speed (bin/vigil-replay), for the baseline process. */
    private static final List<String> LAUNCHER_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:CompileThresholdScaling=3",
            "-XX:+UseSerialGC", "-Xmn16m");
    private static final double STATS_TARGET_EVENTS_PER_S = 15e6;
    private static final long STATS_TARGET_RSS_MB = 256;
    private static final double SHOW_TARGET_S = 0.3;
    private static final int RUNS = 3;
    /** The environment that makes the launcher read with Chronicle's tailer alone. */
    private static final String CHRONICLE_ONLY = "VIGIL_REPLAY_JAVA_OPTS=-Dvigil.journal.reader=chronicle";

    private ReplayBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--raw")) { // the baseline process
            System.out.println(DecodeRateBench.raw(Path.of(args[1])));
            return;
        }
        Path dir = Path.of(args.length > 0 ? args[0] : "/tmp/vigil-bench-journal");
        long target = args.length > 1 ? Long.parseLong(args[1]) : 10_000_000L;
        Path root = Path.of(System.getProperty("vigil.root", ".")).toAbsolutePath();
        if (!Files.exists(dir)) {
            long t = System.nanoTime();
            long[] written = generate(dir, target);
            double s = (System.nanoTime() - t) / 1e9;
            System.out.printf(Locale.ROOT, "generated %,d events, %,d closes in %.1f s%n", written[0], written[1], s);
        }
        long bytes = 0;
        for (Path f : JournalFiles.cycleFiles(dir)) {
            bytes += JournalFiles.usedLength(f);
        }
        long events = DecodeRateBench.raw(dir);
        long closes = countCloses(dir);
        Path launcher = root.resolve("bin/vigil-replay");
        System.out.printf(Locale.ROOT, "journal %s: %,d events, %,d closes, %.1f MB of cycle files; %d cpus; load before %s%n",
                dir, events, closes, bytes / 1e6, Runtime.getRuntime().availableProcessors(), load());
        run(launcher, "stats", "--summary", dir.toString()); // the first journal command after a build writes the CDS archive
        String launcherJvm = run(launcher, "--print-jvm").output.strip(); // "JAVA VERSION (feature N), archive ..."
        System.out.println("launcher's JVM: " + launcherJvm);
        String launcherJdk = "JDK " + launcherJvm.split(" ")[1] + (launcherJvm.contains(".aot ") ? ", AOT cache"
                : ", class-data archive");
        Path aotJava = Jdks.newest(24, System.getenv("VIGIL_BENCH_AOT_JAVA"));
        System.out.printf(Locale.ROOT, "whole processes under /usr/bin/time -v, median of %d runs (min-max)%n", RUNS);
        System.out.printf(Locale.ROOT, "%-52s %15s %15s %12s %12s%n", "command", "wall s", "cpu s", "M events/s", "peak RSS MB");
        Measured stats = row("vigil-replay stats --summary", events, launcher, "stats", "--summary", dir.toString());
        long middle = Math.max(1, closes / 2);
        Measured show = row("vigil-replay show (close " + middle + ")", 0, launcher, "show", dir.toString(),
                Long.toString(middle));
        Measured headers = row("vigil-replay closes (every header, 2 kinds decoded)", events, launcher, "closes",
                dir.toString());
        Measured statsChronicle = row("baseline: stats --summary, Chronicle's tailer alone", events, "/usr/bin/env",
                CHRONICLE_ONLY, launcher.toString(), "stats", "--summary", dir.toString());
        Measured showChronicle = row("baseline: show (close " + middle + "), Chronicle's tailer alone", 0, "/usr/bin/env",
                CHRONICLE_ONLY, launcher.toString(), "show", dir.toString(), Long.toString(middle));
        List<String> raw = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        raw.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-") || a.startsWith("-Dchronicle") || a.startsWith("-Ddisable")).toList());
        raw.addAll(LAUNCHER_FLAGS);
        raw.addAll(List.of("-cp", System.getProperty("java.class.path"), ReplayBenchmark.class.getName(), "--raw",
                dir.toString()));
        Measured tailer = row("baseline: raw Chronicle tailer, every excerpt", events, raw.toArray(String[]::new));
        Measured jvm = row("baseline: JVM start alone (vigil-replay --version)", 0, launcher, "--version");
        // The same two commands on a JDK 24+ with its AOT cache (made by the first journal command on it, as the class-data
        // archive is), like for like: is it worth being the launcher's default? (bin/vigil-replay, VIGIL_REPLAY_JAVA)
        Measured showAot = null;
        Measured jvmAot = null;
        String aot = "";
        if (aotJava != null) {
            String with = "VIGIL_REPLAY_JAVA=" + aotJava;
            run("/usr/bin/env", with, launcher.toString(), "show", dir.toString(), Long.toString(middle));
            aot = run("/usr/bin/env", with, launcher.toString(), "--print-jvm").output.strip();
            System.out.println("JDK 24+ rows: " + aot);
            String jdk = "JDK " + Jdks.version(aotJava) + " + AOT cache: ";
            showAot = row(jdk + "show (close " + middle + ")", 0, "/usr/bin/env", with, launcher.toString(), "show",
                    dir.toString(), Long.toString(middle));
            jvmAot = row(jdk + "JVM start alone", 0, "/usr/bin/env", with, launcher.toString(), "--version");
            aot = String.format(Locale.ROOT, "; on JDK %s with its AOT cache %.2f s wall, %.2f s cpu, JVM start alone %.2f s",
                    Jdks.version(aotJava), showAot.seconds, showAot.cpuSeconds, jvmAot.seconds);
        } else {
            System.out.println("no JDK 24 or later in /usr/lib/jvm (or VIGIL_BENCH_AOT_JAVA): no AOT cache rows");
        }
        System.out.println();
        for (String line : DecodeRateBench.measure(dir, 5)) {
            System.out.println(line);
        }
        double statsRate = events / stats.seconds;
        double rawRate = events / tailer.seconds;
        System.out.println("load after: " + load());
        new BenchSummary(String.format(Locale.ROOT, "replay `stats --summary` over %,d events", events),
                String.format(Locale.ROOT, "%.1f M events/s wall, %.2f s cpu, peak RSS %d MB", statsRate / 1e6,
                        stats.cpuSeconds, stats.peakRssMb),
                String.format(Locale.ROOT, "Chronicle's tailer alone %.1f M events/s, %.2f s cpu, %d MB; raw Chronicle"
                        + " tailer process, every excerpt: %.1f M events/s", events / statsChronicle.seconds / 1e6,
                        statsChronicle.cpuSeconds, statsChronicle.peakRssMb, rawRate / 1e6),
                BenchSummary.ratio(statsChronicle.seconds / stats.seconds), ">= 15 M events/s, <= 256 MB RSS",
                statsRate >= STATS_TARGET_EVENTS_PER_S && stats.peakRssMb <= STATS_TARGET_RSS_MB).print(System.out);
        new BenchSummary(String.format(Locale.ROOT, "replay `show` of one close in %,d events", events),
                String.format(Locale.ROOT, "%.2f s wall, %.2f s cpu (%s)", show.seconds,
                        show.cpuSeconds, launcherJdk),
                String.format(Locale.ROOT, "Chronicle's tailer alone %.2f s wall, %.2f s cpu; JVM start alone %.2f s%s",
                        showChronicle.seconds, showChronicle.cpuSeconds, jvm.seconds, aot),
                BenchSummary.ratio(show.seconds / showChronicle.seconds),
                "<= 0.3 s", show.seconds <= SHOW_TARGET_S).print(System.out);
        new BenchSummary(String.format(Locale.ROOT, "replay `closes` (every header) over %,d events", events),
                String.format(Locale.ROOT, "%.1f M events/s wall, %.2f s cpu", events / headers.seconds / 1e6,
                        headers.cpuSeconds),
                String.format(Locale.ROOT, "raw Chronicle tailer process %.1f M events/s, %.2f s cpu", rawRate / 1e6,
                        tailer.cpuSeconds), BenchSummary.ratio(headers.seconds / tailer.seconds), "none set",
                BenchSummary.Verdict.NO_TARGET).print(System.out);
    }

    private static String load() throws IOException {
        String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
        return f[0] + " " + f[1] + " " + f[2];
    }

    /** Runs the command RUNS times, prints median wall and cpu with their range; returns the median run. */
    private static Measured row(String what, long events, Path launcher, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(launcher.toString()));
        cmd.addAll(List.of(args));
        return row(what, events, cmd.toArray(String[]::new));
    }

    private static Measured row(String what, long events, String... cmd) throws Exception {
        List<Measured> runs = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            runs.add(run(cmd));
        }
        runs.sort(java.util.Comparator.comparingDouble(Measured::seconds));
        Measured m = runs.get(RUNS / 2);
        double minCpu = runs.stream().mapToDouble(Measured::cpuSeconds).min().orElse(0);
        double maxCpu = runs.stream().mapToDouble(Measured::cpuSeconds).max().orElse(0);
        System.out.printf(Locale.ROOT, "%-52s %15s %15s %12s %12d%n", what,
                String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", m.seconds, runs.get(0).seconds, runs.get(RUNS - 1).seconds),
                String.format(Locale.ROOT, "%.2f (%.2f-%.2f)", m.cpuSeconds, minCpu, maxCpu),
                events == 0 ? "" : String.format(Locale.ROOT, "%.1f", events / m.seconds / 1e6), m.peakRssMb);
        return m;
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

    private record Measured(double seconds, double cpuSeconds, long peakRssMb, String output) {
    }

    private static Measured run(Path launcher, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(launcher.toString()));
        cmd.addAll(List.of(args));
        return run(cmd.toArray(String[]::new));
    }

    private static Measured run(String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/time", "-v"));
        cmd.addAll(List.of(command));
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
        return new Measured(s, cpu, rss / 1024, out.length() > 2000 ? out.substring(0, 2000) : out);
    }
}
