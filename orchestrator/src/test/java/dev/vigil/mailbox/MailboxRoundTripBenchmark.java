package dev.vigil.mailbox;

import dev.vigil.journal.bench.BenchSummary;
import dev.vigil.child.ChildKind;
import dev.vigil.child.SpawnedChild;
import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.SpawnFileAction;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Control round trip through the mailbox (parent IDLE -> CONTROL_REQUEST, child -> CONTROL_DONE, parent
 * -> IDLE) against a one-byte pipe ping-pong between the same two processes, for a Java child and a C
 * child, in one run, interleaved in rounds so machine noise hits both alike. Not part of the default build:
 * <pre>
 * mvn -B -o verify -pl orchestrator -am -Dvigil.test.excludedGroups=none -Dtest=MailboxRoundTripBenchmark -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 * Prints p50 / p99 / p99.9 per transport and the pipe/mailbox ratio; writes the same to target/mailbox-bench.txt.
 */
@Tag("slow")
@Tag("bench")
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class MailboxRoundTripBenchmark {
    static final int ROUNDS = Integer.getInteger("vigil.bench.rounds", 5);
    static final int PER_ROUND = Integer.getInteger("vigil.bench.perRound", 20_000);
    static final int WARMUP = Integer.getInteger("vigil.bench.warmup", 50_000);
    static final POSIX POSIX = POSIXFactory.getNativePOSIX();

    @TempDir
    Path dir;

    @Test
    void controlRoundTripVersusPipePingPong() throws Exception {
        StringBuilder report = new StringBuilder();
        report.append(String.format(Locale.ROOT, "mailbox vs pipe round trip, %d x %d measured per transport after %d warm-up, %d cpus, load %s%n",
                ROUNDS, PER_ROUND, WARMUP, Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim()));
        report.append(String.format(Locale.ROOT, "%-6s %-8s %9s %9s %9s %9s%n", "child", "via", "p50 us", "p90 us", "p99 us", "p99.9 us"));
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("bench.map"), 4)) {
            for (ChildKind kind : ChildKind.values()) {
                report.append(measure(store, kind));
            }
        }
        System.out.print(report);
        Files.writeString(Path.of("target/mailbox-bench.txt"), report.toString());
    }

    private String measure(MailboxStore store, ChildKind kind) throws Exception {
        MailboxHandle handle = store.allocate(new MailboxId("bench", kind.name(), 0), ProtocolMode.STICKY);
        int[] toChild = new int[2];
        int[] fromChild = new int[2];
        if (POSIX.pipe(toChild) != 0 || POSIX.pipe(fromChild) != 0) {
            throw new IllegalStateException("pipe failed: errno=" + POSIX.errno());
        }
        List<SpawnFileAction> actions = List.of(
                SpawnFileAction.dup(toChild[0], 0), SpawnFileAction.dup(fromChild[1], 1),
                SpawnFileAction.close(toChild[0]), SpawnFileAction.close(toChild[1]),
                SpawnFileAction.close(fromChild[0]), SpawnFileAction.close(fromChild[1]),
                SpawnFileAction.open(dir.resolve(kind + ".log").toString(), 2, 1 | 0x40 | 0x400, 0644));
        List<String> argv = kind.argv(List.of("-XX:+UseSerialGC", "-Xmx128m"));
        Histogram mailbox = new Histogram(3_600_000_000L, 3);
        Histogram pipe = new Histogram(3_600_000_000L, 3);
        try (SpawnedChild child = SpawnedChild.spawn(argv, kind.env(handle, DemoBehaviour.DEFAULT), actions)) {
            POSIX.close(toChild[0]);
            POSIX.close(fromChild[1]);
            if (handle.awaitInit(Duration.ofSeconds(30)) != InitOutcome.READY) {
                throw new IllegalStateException("child not ready: " + handle);
            }
            mailboxRoundTrips(handle, WARMUP, null);
            pipeRoundTrips(handle, toChild[1], fromChild[0], WARMUP, null);
            for (int round = 0; round < ROUNDS; round++) {
                mailboxRoundTrips(handle, PER_ROUND, mailbox);
                pipeRoundTrips(handle, toChild[1], fromChild[0], PER_ROUND, pipe);
            }
            handle.publishShutdown(1);
            Integer status = child.awaitExit(Duration.ofSeconds(30));
            if (status == null || status != 0) {
                throw new IllegalStateException("child did not exit cleanly: status=" + status);
            }
        } finally {
            POSIX.close(toChild[1]);
            POSIX.close(fromChild[0]);
        }
        double faster = (double) pipe.getValueAtPercentile(50) / mailbox.getValueAtPercentile(50);
        BenchSummary summary = new BenchSummary("mailbox control round trip, " + kind + " child, p50 (child busy-polling)",
                String.format(Locale.ROOT, "%.2f us", mailbox.getValueAtPercentile(50) / 1e3),
                String.format(Locale.ROOT, "pipe ping-pong with the same child %.2f us", pipe.getValueAtPercentile(50) / 1e3),
                BenchSummary.ratio(faster) + " faster", "p50 <= 5 us and >= 3x faster than the pipe",
                mailbox.getValueAtPercentile(50) <= 5_000 && faster >= 3);
        return line(kind, "mailbox", mailbox) + line(kind, "pipe", pipe)
                + String.format(Locale.ROOT, "%-6s %-8s %9.1fx %8.1fx%n", kind, "pipe/mbx", faster,
                        (double) pipe.getValueAtPercentile(99) / mailbox.getValueAtPercentile(99))
                + summary.line() + System.lineSeparator();
    }

    private static void mailboxRoundTrips(MailboxHandle handle, int count, Histogram into) {
        Duration timeout = Duration.ofSeconds(10);
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            long value = handle.control(DemoHandler.OP_ECHO, i, timeout).value();
            long elapsed = System.nanoTime() - start;
            if (value != i) {
                throw new IllegalStateException("echo mismatch: sent=" + i + " got=" + value);
            }
            if (into != null) {
                into.recordValue(elapsed);
            }
        }
    }

    /** The child serves one PIPE_PINGPONG control command that echoes {@code count} single bytes. */
    private static void pipeRoundTrips(MailboxHandle handle, int out, int in, int count, Histogram into) {
        handle.sendControl(DemoHandler.OP_PIPE_PINGPONG, count);
        byte[] one = new byte[1];
        for (int i = 0; i < count; i++) {
            one[0] = (byte) i;
            long start = System.nanoTime();
            if (POSIX.write(out, one, 1) != 1 || POSIX.read(in, one, 1) != 1) {
                throw new IllegalStateException("pipe round trip failed: errno=" + POSIX.errno());
            }
            long elapsed = System.nanoTime() - start;
            if (into != null) {
                into.recordValue(elapsed);
            }
        }
        if (handle.awaitControl(Duration.ofSeconds(10)).value() != count) {
            throw new IllegalStateException("child stopped ping-pong early");
        }
    }

    private static String line(ChildKind kind, String via, Histogram h) {
        return String.format(Locale.ROOT, "%-6s %-8s %9.2f %9.2f %9.2f %9.2f%n", kind, via, h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3);
    }
}
