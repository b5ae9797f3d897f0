package dev.vigil.child;

import dev.vigil.journal.bench.BenchSummary;
import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.ProtocolMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The Python child against the C child in the same run (bin/vigil-bench python): spawn-to-ready (spawn until
 * INIT_READY) and the control round trip (echo, parent-measured), and, reported apart, the interpreter's
 * own start-up ({@code python3 -c pass}, spawn to exit) that the Python child's spawn-to-ready contains.
 * Contenders alternate every round so that load drifts hit both. Prints a markdown section.
 * Usage: PythonChildBenchmark [spawn-rounds] [round-trips].
 */
public final class PythonChildBenchmark {
    private PythonChildBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        int trips = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        Path dir = Files.createTempDirectory("vigil-python-bench-");
        double[] cReady = new double[rounds];
        double[] pyReady = new double[rounds];
        double[] pyPass = new double[rounds];
        double[] cTrip;
        double[] pyTrip;
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 8)) {
            for (int i = 0; i < rounds; i++) {
                cReady[i] = spawnToReadyMillis(store, ChildKind.C, dir, i);
                pyReady[i] = spawnToReadyMillis(store, ChildKind.PYTHON, dir, i);
                pyPass[i] = interpreterStartMillis(dir);
            }
            cTrip = roundTripMicros(store, ChildKind.C, dir, trips);
            pyTrip = roundTripMicros(store, ChildKind.PYTHON, dir, trips);
        }
        String loadAfter = Files.readString(Path.of("/proc/loadavg")).trim();
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "%d spawn rounds, %d round trips per child after %d warm-up, 2 cpus; load before: %s; after: %s%n%n",
                rounds, trips, trips / 4, loadBefore, loadAfter));
        md.append("| measure | C child | Python child | Python / C |\n|---|---:|---:|---:|\n");
        row(md, "spawn to INIT_READY, median ms", cReady, pyReady, 50);
        row(md, "spawn to INIT_READY, p90 ms", cReady, pyReady, 90);
        row(md, "control round trip, median us", cTrip, pyTrip, 50);
        row(md, "control round trip, p99 us", cTrip, pyTrip, 99);
        md.append(String.format(Locale.ROOT, "| interpreter alone: `%s -c pass`, spawn to exit, median ms | | %.1f | |%n",
                ChildKind.pythonBin(), percentile(pyPass, 50)));
        md.append(String.format(Locale.ROOT, "| Python child's spawn-to-ready beyond the bare interpreter, median ms | | %.1f | |%n",
                percentile(pyReady, 50) - percentile(pyPass, 50)));
        System.out.print(md);
        BenchSummary.reported("Python child spawn to INIT_READY, median (interpreter alone: "
                + String.format(Locale.ROOT, "%.1f ms)", percentile(pyPass, 50)),
                String.format(Locale.ROOT, "%.1f ms", percentile(pyReady, 50)),
                String.format(Locale.ROOT, "C child %.1f ms", percentile(cReady, 50)),
                BenchSummary.ratio(percentile(pyReady, 50) / percentile(cReady, 50))).print(System.out);
        BenchSummary.reported("Python child control round trip, median", String.format(Locale.ROOT, "%.2f us", percentile(pyTrip, 50)),
                String.format(Locale.ROOT, "C child %.2f us", percentile(cTrip, 50)),
                BenchSummary.ratio(percentile(pyTrip, 50) / percentile(cTrip, 50))).print(System.out);
    }

    private static void row(StringBuilder md, String what, double[] c, double[] py, int p) {
        double a = percentile(c, p);
        double b = percentile(py, p);
        md.append(String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.1fx |%n", what, a, b, b / a));
    }

    static double percentile(double[] values, int p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static int next;

    private static double spawnToReadyMillis(MailboxStore store, ChildKind kind, Path dir, int round) {
        MailboxId id = new MailboxId("bench", kind.name(), next++);
        MailboxHandle handle = store.allocate(id, ProtocolMode.STICKY);
        long t0 = System.nanoTime();
        try (SpawnedChild child = kind.spawn(handle, DemoBehaviour.DEFAULT, dir.resolve("child.log"))) {
            if (handle.awaitInit(Duration.ofSeconds(60)) != InitOutcome.READY) {
                throw new IllegalStateException(kind + " child not ready in round " + round);
            }
            double millis = (System.nanoTime() - t0) / 1e6;
            handle.publishShutdown(1);
            if (child.awaitExit(Duration.ofSeconds(30)) == null) {
                throw new IllegalStateException(kind + " child did not exit in round " + round);
            }
            return millis;
        } finally {
            store.release(id);
        }
    }

    private static double interpreterStartMillis(Path dir) {
        long t0 = System.nanoTime();
        try (SpawnedChild child = SpawnedChild.spawn(List.of(ChildKind.pythonBin(), "-c", "pass"), java.util.Map.of(),
                dir.resolve("pass.log"))) {
            if (child.awaitExit(Duration.ofSeconds(60)) == null) {
                throw new IllegalStateException("python3 -c pass did not exit");
            }
        }
        return (System.nanoTime() - t0) / 1e6;
    }

    private static double[] roundTripMicros(MailboxStore store, ChildKind kind, Path dir, int trips) {
        MailboxId id = new MailboxId("bench-trip", kind.name(), next++);
        MailboxHandle handle = store.allocate(id, ProtocolMode.STICKY);
        try (SpawnedChild child = kind.spawn(handle, DemoBehaviour.DEFAULT, dir.resolve("trip.log"))) {
            if (handle.awaitInit(Duration.ofSeconds(60)) != InitOutcome.READY) {
                throw new IllegalStateException(kind + " child not ready");
            }
            for (int i = 0; i < trips / 4; i++) {
                handle.control(DemoHandler.OP_ECHO, i, Duration.ofSeconds(30));
            }
            double[] micros = new double[trips];
            for (int i = 0; i < trips; i++) {
                long t0 = System.nanoTime();
                handle.control(DemoHandler.OP_ECHO, i, Duration.ofSeconds(30));
                micros[i] = (System.nanoTime() - t0) / 1e3;
            }
            handle.publishShutdown(1);
            child.awaitExit(Duration.ofSeconds(30));
            return micros;
        } finally {
            store.release(id);
        }
    }
}
