package dev.vigil.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * {@code vigil run|demo --ship HOST:PORT}: ships the run's journal to Kafka while it runs, in a
 * process of its own ({@code bin/vigil ship ... --until-stdin-closed}, the fleet module), so the
 * orchestrator's append path never waits for the network. The shipper follows the journal; when the
 * run ends (or the orchestrator dies) its standard input closes, and it ships the rest and exits.
 */
final class JournalShipping {
    /** Where to ship. */
    record Target(String bootstrap, String topic, String hostId) {
    }

    /** Longest wait for the shipper to ship what is left once the run is over. */
    private static final long FINISH_SECONDS = 180;
    /** How long the run waits for the shipper without a word. */
    private static final long QUIET_MILLIS = 2_000;
    /** How long a stopped shipper gets to checkpoint and exit before SIGKILL. */
    private static final long STOP_GRACE_SECONDS = 10;
    private static final long POLL_MILLIS = 100;

    private final Process process;
    private final Path log;

    private JournalShipping(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts the shipper for a journal that exists (the orchestrator opened it). */
    static JournalShipping start(Path journal, Target target, PrintStream out) {
        String root = System.getProperty("vigil.root");
        if (root == null) {
            throw new IllegalArgumentException("--ship needs the launcher bin/vigil (system property vigil.root is unset)");
        }
        List<String> cmd = new ArrayList<>(List.of(Path.of(root, "bin", "vigil").toString(), "ship", journal.toString(),
                "--bootstrap", target.bootstrap(), "--topic", target.topic(), "--until-stdin-closed"));
        if (target.hostId() != null) {
            cmd.addAll(List.of("--host-id", target.hostId()));
        }
        Path log = journal.resolve("shipped-" + target.topic() + ".log");
        try {
            // Not a pool child: a helper process of the runner, reaped by the JDK like any other.
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            out.println("shipping the journal to " + target.bootstrap() + " topic " + target.topic() + " (pid "
                    + p.pid() + ", log " + log + ")");
            return new JournalShipping(p, log);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot start the shipper " + cmd + ": " + e.getMessage(), e);
        }
    }

    /**
     * Tells the shipper the run is over and waits (bounded) until it has shipped the rest. A wait longer than
     * {@link #QUIET_MILLIS} is said with the shipper's last line (a cluster that went away is retried for minutes);
     * a stop request during the wait ({@code stopAsked}: Ctrl-C, SIGTERM) ends it at once. A shipper that is stopped
     * gets SIGTERM (it checkpoints what was acknowledged), then SIGKILL after {@link #STOP_GRACE_SECONDS}: none outlives
     * the run.
     */
    void finish(PrintStream out, BooleanSupplier stopAsked) {
        try {
            process.getOutputStream().close();
            long start = System.nanoTime();
            boolean said = false;
            while (!process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS)) {
                long waited = System.nanoTime() - start;
                if (!said && waited >= TimeUnit.MILLISECONDS.toNanos(QUIET_MILLIS)) {
                    said = true;
                    out.println("shipping: the shipper is still sending what is left (waiting at most " + FINISH_SECONDS
                            + " s; Ctrl-C stops waiting); its last line: " + lastLine());
                }
                boolean asked = stopAsked.getAsBoolean();
                if (asked || waited >= TimeUnit.SECONDS.toNanos(FINISH_SECONDS)) {
                    stop();
                    out.println("shipping: " + (asked ? "stopped on request" : "not done " + FINISH_SECONDS + " s after the run")
                            + "; stopped the shipper (a rerun of vigil ship resumes from its checkpoint), log " + log);
                    return;
                }
            }
            out.println("shipping: " + lastLine() + (process.exitValue() == 0 ? "" : " (exit " + process.exitValue() + ", log " + log + ")"));
        } catch (IOException e) {
            out.println("shipping: " + e.getMessage());
        } catch (InterruptedException e) {
            stop();
            Thread.currentThread().interrupt();
        }
    }

    /** SIGTERM, then SIGKILL if it has not exited after {@link #STOP_GRACE_SECONDS}; bounded either way. */
    private void stop() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(STOP_GRACE_SECONDS, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private String lastLine() throws IOException {
        List<String> lines = Files.readAllLines(log);
        return lines.isEmpty() ? "(no output yet)" : lines.get(lines.size() - 1).strip();
    }
}
