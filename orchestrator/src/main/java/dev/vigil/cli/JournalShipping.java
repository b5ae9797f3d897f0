package dev.vigil.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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

    /** Tells the shipper the run is over and waits (bounded) until it has shipped the rest. */
    void finish(PrintStream out) {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(FINISH_SECONDS, TimeUnit.SECONDS)) {
                process.destroy();
                out.println("shipping: not done " + FINISH_SECONDS + " s after the run; stopped it (a rerun of vigil ship"
                        + " resumes from its checkpoint), log " + log);
                return;
            }
            List<String> lines = Files.readAllLines(log);
            String last = lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1);
            out.println("shipping: " + last + (process.exitValue() == 0 ? "" : " (exit " + process.exitValue() + ", log " + log + ")"));
        } catch (IOException e) {
            out.println("shipping: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
