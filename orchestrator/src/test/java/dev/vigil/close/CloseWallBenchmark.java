package dev.vigil.close;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.pool.PoolChild;
import dev.vigil.spawn.ChildProcess;
import dev.vigil.spawn.ExitStatus;
import dev.vigil.spawn.Redirect;
import dev.vigil.spawn.SpawnRequest;

/**
 * Close wall time of a 64-child pool against reference (b), a C pidfd_open+poll reaper, over the
 * same children (docs/BENCHMARKS.md, "Close wall time"). Not a test: run it by hand.
 *
 * <p>The children are {@code vigil-exit-stamp} processes that exit at fixed CLOCK_MONOTONIC times
 * (the first {@value #FIRST_EXIT_MS} ms after the round starts, then {@value #SPACING_US} us apart),
 * started as plain-executable pool children whose stop signal is SIGCONT (harmless), so close does
 * not change when they exit. Close starts 2 ms before the first exit. Figures per round: reap wall =
 * last reap - first exit stamp (what the reference prints as wall_ns); close wall = close() returned -
 * first exit stamp (adds diagnosis-free release, report and journal). Rounds alternate.
 *
 * <pre>
 *   java @orchestrator/target/jvm.options -cp ... dev.vigil.close.CloseWallBenchmark [rounds, default 10]
 * </pre>
 */
public final class CloseWallBenchmark {
    static final int CHILDREN = 64;
    static final long FIRST_EXIT_MS = 2000;
    static final long SPACING_US = 200;
    private static final int SIGCONT = 18;

    private CloseWallBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        Path work = Files.createTempDirectory(Path.of("/dev/shm"), "vigil-close-bench");
        try (Orchestrator o = Orchestrator.builder().journalDir(work.resolve("journal"))
                .closeSettings(CloseSettings.from(System::getProperty)).open()) {
            run(o, work, rounds, System.out);
        }
    }

    static void run(Orchestrator o, Path work, int rounds, PrintStream out) throws Exception {
        Path exitStamp = o.nativeDir().resolve("vigil-exit-stamp");
        List<Long> vigilReap = new ArrayList<>();
        List<Long> vigilClose = new ArrayList<>();
        List<Long> reference = new ArrayList<>();
        for (int round = -1; round < rounds; round++) { // round -1 warms up
            long[] v = vigilRound(o, work, exitStamp, round);
            long r = referenceRound(o, work, exitStamp);
            if (round >= 0) {
                vigilReap.add(v[0]);
                vigilClose.add(v[1]);
                reference.add(r);
            }
        }
        out.printf(Locale.ROOT, "close wall time, %d children exiting %d us apart, %d rounds, load %s%n", CHILDREN,
                SPACING_US, rounds, Files.readString(Path.of("/proc/loadavg")).trim());
        out.printf(Locale.ROOT, "%-34s %10s %10s %10s%n", "contender", "median ms", "p90 ms", "max ms");
        row(out, "(b) C pidfd+poll, reap wall", reference);
        row(out, "vigil close, reap wall", vigilReap);
        row(out, "vigil close, close() wall", vigilClose);
        out.printf(Locale.ROOT, "ratio vigil close() wall / (b) reap wall, medians: %.3f%n",
                median(vigilClose) / (double) median(reference));
    }

    private static long[] vigilRound(Orchestrator o, Path work, Path exitStamp, int round) throws Exception {
        long t0 = MonotonicClock.nanos();
        long firstExit = t0 + FIRST_EXIT_MS * 1_000_000L;
        Pool.Builder b = Pool.builder(o, "bench" + round).childOutput(Redirect.DISCARD)
                .closeSettings(CloseSettings.builder().window(java.time.Duration.ofSeconds(5)).build());
        List<Path> stamps = new ArrayList<>();
        for (int i = 0; i < CHILDREN; i++) {
            Path stamp = work.resolve("v" + i + ".stamp");
            stamps.add(stamp);
            b.group(String.format(Locale.ROOT, "c%02d", i), 1, ChildSpec.exec(exitStamp.toString(),
                    "@" + (firstExit + i * SPACING_US * 1000), stamp.toString()).withStopSignal(SIGCONT));
        }
        Pool pool = b.start();
        long lead = firstExit - 2_000_000L - MonotonicClock.nanos();
        if (lead < 0) {
            throw new IllegalStateException("pool start took longer than the first exit delay; raise FIRST_EXIT_MS");
        }
        Thread.sleep(lead / 1_000_000L, (int) (lead % 1_000_000L));
        pool.closeWithReport();
        long closed = MonotonicClock.nanos();
        long first = Long.MAX_VALUE;
        long lastReap = 0;
        for (PoolChild c : pool.children()) {
            lastReap = Math.max(lastReap, c.process().exitStatus().orElseThrow().reapedNanos());
        }
        for (Path s : stamps) {
            first = Math.min(first, ByteBuffer.wrap(Files.readAllBytes(s)).order(ByteOrder.nativeOrder()).getLong(0));
            Files.delete(s);
        }
        return new long[] {lastReap - first, closed - first};
    }

    private static long referenceRound(Orchestrator o, Path work, Path exitStamp) throws Exception {
        Path output = work.resolve("reference.txt");
        ChildProcess ref = o.spawner().spawn(SpawnRequest.of(o.nativeDir().resolve("vigil-reap-reference").toString(),
                "pidfd", exitStamp.toString(), work.toString(), Integer.toString(CHILDREN), Long.toString(FIRST_EXIT_MS),
                Long.toString(SPACING_US)).withStdout(Redirect.writeTo(output)));
        ExitStatus status = ref.onExit().get();
        List<String> lines = Files.readAllLines(output);
        Files.delete(output);
        if (status.exitCode() != 0) {
            throw new IllegalStateException("reference failed: " + status.describe() + " " + lines);
        }
        for (String line : lines) {
            if (line.startsWith("wall_ns ")) {
                return Long.parseLong(line.substring(8).trim());
            }
        }
        throw new IllegalStateException("reference printed no wall_ns: " + lines);
    }

    private static void row(PrintStream out, String name, List<Long> values) {
        List<Long> s = new ArrayList<>(values);
        Collections.sort(s);
        out.printf(Locale.ROOT, "%-34s %10.2f %10.2f %10.2f%n", name, median(s) / 1e6, s.get((int) Math.ceil(s.size() * 0.9) - 1) / 1e6,
                s.get(s.size() - 1) / 1e6);
    }

    private static long median(List<Long> values) {
        List<Long> s = new ArrayList<>(values);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
