package dev.vigil.pool;

import dev.vigil.journal.bench.BenchSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

import dev.vigil.close.CloseFailedException;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.contain.ContainmentSettings;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MonotonicClock;

/**
 * The cost of containment, cgroup mode against the process-group fallback in the same run, rounds interleaved so
 * that both see the same load (bin/vigil-bench contain, which writes its section of docs/BENCHMARKS.md):
 * <ul>
 * <li>spawn-to-ready of one C demo child ({@code Pool.start} of a one-child pool: the pool's container made, the
 *     child spawned, INIT_READY seen): with cgroup placement (pool cgroup mkdir, the shim's write to cgroup.procs)
 *     vs without;</li>
 * <li>close of a 64-child pool of TERM-ignoring children that each forked a TERM-ignoring sleep (128 processes),
 *     term-then-kill with a 50 ms window and 50 ms grace: the SIGKILL step as one cgroup.kill vs per-child signals
 *     (pidfd + process group) in the fallback; the close's duration and the time from the kill to the last reap.</li>
 * </ul>
 * Args: [spawn rounds (default 200)] [close rounds (default 10)].
 */
public final class ContainmentBenchmark {
    private ContainmentBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int spawnRounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int closeRounds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Path dir = Files.createTempDirectory("vigil-contain-bench-");
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        double[] readyCgroup = new double[spawnRounds];
        double[] readyPgroup = new double[spawnRounds];
        double[] closeCgroup = new double[closeRounds];
        double[] closePgroup = new double[closeRounds];
        double[] killCgroup = new double[closeRounds];
        double[] killPgroup = new double[closeRounds];
        CloseSettings settings = CloseSettings.builder().window(Duration.ofMillis(50)).grace(Duration.ofMillis(50))
                .escalation(EscalationPolicy.TERM_THEN_KILL).build();
        try (Orchestrator cg = open(dir.resolve("cgroup"), ContainmentSettings.cgroups(null));
                Orchestrator pg = open(dir.resolve("pgroup"), ContainmentSettings.processGroups())) {
            for (int i = 0; i < 20; i++) { // warm-up: JIT, page cache of the C child
                readyMillis(cg, "warm-c-" + i);
                readyMillis(pg, "warm-p-" + i);
            }
            for (int i = 0; i < spawnRounds; i++) {
                if (i % 2 == 0) {
                    readyCgroup[i] = readyMillis(cg, "c-" + i);
                    readyPgroup[i] = readyMillis(pg, "p-" + i);
                } else {
                    readyPgroup[i] = readyMillis(pg, "p-" + i);
                    readyCgroup[i] = readyMillis(cg, "c-" + i);
                }
            }
            for (int i = 0; i < closeRounds; i++) {
                double[] c = closeMillis(cg, "close-c-" + i, settings);
                double[] p = closeMillis(pg, "close-p-" + i, settings);
                closeCgroup[i] = c[0];
                killCgroup[i] = c[1];
                closePgroup[i] = p[0];
                killPgroup[i] = p[1];
            }
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%d spawn rounds (after 20 warm-up) and %d close rounds per mode, the two modes"
                + " interleaved in one JVM, %d cpus; load before: %s; after: %s%n%n", spawnRounds, closeRounds,
                Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter));
        md.append("| measure | cgroup (v2) | process groups | cgroup / pgroup |\n|---|---:|---:|---:|\n");
        row(md, "C child spawn-to-ready (one-child pool start), median ms", readyCgroup, readyPgroup, 50);
        row(md, "C child spawn-to-ready (one-child pool start), p99 ms", readyCgroup, readyPgroup, 99);
        row(md, "close of 64 forking TERM-ignoring children, median ms", closeCgroup, closePgroup, 50);
        row(md, "close of 64 forking TERM-ignoring children, p99 ms", closeCgroup, closePgroup, 99);
        row(md, "SIGKILL step to the last reap, median ms", killCgroup, killPgroup, 50);
        row(md, "SIGKILL step to the last reap, p99 ms", killCgroup, killPgroup, 99);
        md.append(String.format(Locale.ROOT, "%nPlacement costs %.1f %% at the median (target: at most 10 %%). The close's"
                + " window and grace (50 + 50 ms) are in both close durations; cgroup mode's close also waits for"
                + " `populated 0` and sweeps for strays. Fallback: the 64 sleeps stayed in their groups here, so both modes"
                + " end all 128 processes.%n", (percentile(readyCgroup, 50) / percentile(readyPgroup, 50) - 1) * 100));
        System.out.print(md);
        for (int p : new int[] {50, 99}) {
            double cost = percentile(readyCgroup, p) / percentile(readyPgroup, p);
            new BenchSummary("C child spawn-to-ready with cgroup placement, p" + p,
                    String.format(Locale.ROOT, "%.2f ms", percentile(readyCgroup, p)),
                    String.format(Locale.ROOT, "without placement (process groups) %.2f ms", percentile(readyPgroup, p)),
                    BenchSummary.ratio(cost), "placement costs at most 10 % (<= 1.10x)", cost <= 1.10).print(System.out);
        }
        double close = percentile(closeCgroup, 50) / percentile(closePgroup, 50);
        BenchSummary.reported("close of 64 forking TERM-ignoring children, median",
                String.format(Locale.ROOT, "cgroup.kill %.1f ms", percentile(closeCgroup, 50)),
                String.format(Locale.ROOT, "per-child signals (process groups) %.1f ms", percentile(closePgroup, 50)),
                BenchSummary.ratio(close)).print(System.out);
    }

    private static Orchestrator open(Path journal, ContainmentSettings containment) {
        return Orchestrator.builder().journalDir(journal).containment(containment).maxMailboxes(64)
                .closeSettings(CloseSettings.defaults()).open();
    }

    private static double readyMillis(Orchestrator o, String id) {
        long t0 = MonotonicClock.nanos();
        Pool pool = Pool.builder(o, id).group("c", 1, ChildSpec.cDemo()).start();
        long ready = MonotonicClock.nanos() - t0;
        CloseReport r = pool.closeWithReport();
        if (!r.isClean()) {
            throw new IllegalStateException("benchmark pool " + id + " did not close clean: " + r.toJson());
        }
        return ready / 1e6;
    }

    /** {close duration ms, ms from the first SIGKILL escalation to the last reap}. */
    private static double[] closeMillis(Orchestrator o, String id, CloseSettings settings) throws Exception {
        Pool pool = Pool.builder(o, id).closeSettings(settings)
                .group("g", 64, ChildSpec.exec("/bin/sh", "-c", "trap '' TERM; sleep 600 & wait")).start();
        Thread.sleep(300); // every sh has forked its sleep
        CloseReport r;
        try {
            r = pool.closeWithReport();
        } catch (CloseFailedException expected) {
            r = expected.report();
        }
        if (!r.survivors().isEmpty()) {
            throw new IllegalStateException("benchmark pool " + id + " kept survivors: " + r.toJson());
        }
        o.journal().writer().flush();
        long firstKill = Long.MAX_VALUE;
        long lastReap = 0;
        for (JournalEvent e : JournalChecks.readAll(o.journal().writer().dir())) {
            if (e.closeId() != r.closeId()) {
                continue;
            }
            if (e instanceof EscalationSent s && s.signal() == 9) {
                firstKill = Math.min(firstKill, s.timeNanos());
            } else if (e instanceof ChildReaped c) {
                lastReap = Math.max(lastReap, c.timeNanos());
            }
        }
        return new double[] {r.durationNanos() / 1e6, (lastReap - firstKill) / 1e6};
    }

    private static void row(StringBuilder md, String name, double[] a, double[] b, int p) {
        double x = percentile(a, p);
        double y = percentile(b, p);
        md.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f |%n", name, x, y, x / y));
    }

    static double percentile(double[] values, int p) {
        double[] s = values.clone();
        Arrays.sort(s);
        int i = (int) Math.ceil(p / 100.0 * s.length) - 1;
        return s[Math.max(0, Math.min(s.length - 1, i))];
    }
}
