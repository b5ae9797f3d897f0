package dev.vigil.replay;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Issue 10, "damage is always named, fast": a journal of about 100 MB (by default 1,400,000 events of the replay
 * benchmark's mix), damaged once per kind of {@link DamagedJournalFuzzTest} (seeded), and the time each of
 * {@code audit}, {@code closes} and {@code export} takes through {@code bin/vigil-replay} (a fresh JVM, output to
 * /dev/null), with its exit code and its ERR line. The target: every answer within 5 s. Run by
 * {@code bin/vigil-bench damage}; prints the table that lands in docs/JOURNAL.md.
 *
 * <p>Arguments: WORK_DIR [EVENTS]. The undamaged journal is generated once into WORK_DIR/base and reused.
 */
public final class DamageTimingBench {
    private static final double TARGET_SECONDS = 5.0;

    private DamageTimingBench() {
    }

    public static void main(String[] args) throws Exception {
        Path work = Path.of(args.length > 0 ? args[0] : "/tmp/vigil-bench-damage");
        long events = args.length > 1 ? Long.parseLong(args[1]) : 1_400_000L;
        Path root = Path.of(System.getProperty("vigil.root", ".")).toAbsolutePath();
        Path launcher = root.resolve("bin/vigil-replay");
        Path base = work.resolve("base");
        if (!Files.exists(base)) {
            long t = System.nanoTime();
            long[] written = ReplayBenchmark.generate(base, events);
            System.out.printf(Locale.ROOT, "generated %,d events, %,d closes in %.1f s%n", written[0], written[1],
                    (System.nanoTime() - t) / 1e9);
        }
        long bytes = 0;
        for (Path f : JournalFiles.cycleFiles(base)) {
            bytes += JournalFiles.usedLength(f);
        }
        System.out.printf(Locale.ROOT, "journal: %s, %.1f MB of events in %d cycle file(s); load %s%n", base, bytes / 1e6,
                JournalFiles.cycleFiles(base).size(), loadAverage());
        // -Dvigil.damage.commands=audit,closes and -Dvigil.damage.kinds=3,9,10 run a subset (a loaded machine).
        String[] commands = System.getProperty("vigil.damage.commands", "audit,closes,export").split(",");
        java.util.Set<Integer> kinds = new java.util.TreeSet<>();
        for (String k : System.getProperty("vigil.damage.kinds", "0,1,2,3,4,5,6,7,8,9,10,11").split(",")) {
            kinds.add(Integer.parseInt(k.trim()));
        }
        System.out.printf(Locale.ROOT, "%-44s %-7s %4s %8s  %s%n", "damage", "command", "exit", "seconds", "answer");
        double baseline = 0;
        for (String command : commands) { // the undamaged journal: the baseline
            Run r = run(launcher, command, base);
            baseline = Math.max(baseline, r.seconds);
            System.out.printf(Locale.ROOT, "%-44s %-7s %4d %8.2f  %s%n", "(none)", command, r.exit, r.seconds, r.firstErr);
        }
        Random random = new Random(Long.getLong("vigil.replay.fuzzSeed", 20261203L));
        Path dir = work.resolve("copy");
        double worst = 0;
        List<String> over = new ArrayList<>();
        for (int kind = 0; kind < 12; kind++) {
            if (!kinds.contains(kind)) {
                random.nextLong(); // seeded: the same subset of kinds gets the same damage every run
                continue;
            }
            deleteTree(dir);
            JournalFiles.copyCompact(base, dir);
            String damage = DamagedJournalFuzzTest.damage(dir, kind, random);
            for (String command : commands) {
                Run r = run(launcher, command, dir);
                worst = Math.max(worst, r.seconds);
                if (r.seconds > TARGET_SECONDS) {
                    over.add(damage + " " + command);
                }
                System.out.printf(Locale.ROOT, "%-44s %-7s %4d %8.2f  %s%n", truncate(damage, 44), command, r.exit,
                        r.seconds, truncate(r.firstErr, 150));
            }
        }
        deleteTree(dir);
        System.out.printf(Locale.ROOT, "slowest answer %.2f s (target %.0f s): %s; load after %s%n", worst, TARGET_SECONDS,
                over.isEmpty() ? "met" : "NOT met for " + over, loadAverage());
        new dev.vigil.journal.bench.BenchSummary(String.format(Locale.ROOT,
                "damaged %.0f MB journal named (%s; %d damage kinds), slowest answer", bytes / 1e6, String.join(", ", commands),
                kinds.size()), String.format(Locale.ROOT, "%.2f s", worst),
                String.format(Locale.ROOT, "the undamaged journal, slowest command %.2f s", baseline),
                dev.vigil.journal.bench.BenchSummary.ratio(worst / baseline), "<= 5 s", over.isEmpty()).print(System.out);
    }

    private record Run(int exit, double seconds, String firstErr) {
    }

    private static Run run(Path launcher, String command, Path dir) throws IOException, InterruptedException {
        Path err = Files.createTempFile("vigil-damage-bench", ".err");
        try {
            long t = System.nanoTime();
            Process p = new ProcessBuilder(launcher.toString(), command, dir.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                return new Run(-1, 120, "no answer within 120 s");
            }
            double s = (System.nanoTime() - t) / 1e9;
            String first = Files.readAllLines(err, StandardCharsets.UTF_8).stream().filter(l -> !l.isBlank()).findFirst()
                    .orElse("");
            return new Run(p.exitValue(), s, first);
        } finally {
            Files.deleteIfExists(err);
        }
    }

    private static String truncate(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 3) + "...";
    }

    private static String loadAverage() throws IOException {
        String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
        return f[0] + " " + f[1] + " " + f[2];
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
