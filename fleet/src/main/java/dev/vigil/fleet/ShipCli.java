package dev.vigil.fleet;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.vigil.journal.JournalException;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code vigil ship JOURNAL_DIR --bootstrap HOST:PORT --topic T}: tails a journal into a Kafka topic
 * (docs/FLEET.md). Exit codes: 0 shipped, 1 the cluster stayed unreachable through every retry (rerun to
 * resume), 2 bad input; stopped by SIGTERM / Ctrl-C: 143 / 130, after its checkpoint and summary.
 */
@Command(name = "vigil ship", mixinStandardHelpOptions = true, version = "vigil ship 0.1.0",
        // one string: picocli wraps it at the help width (lines given apart were each wrapped, leaving stubs)
        description = "Ship a journal's events to a Kafka topic: idempotent producer, acks=all, key = host | orchestrator pid"
            + " | pool. The acknowledged position is checkpointed beside the journal (shipped-TOPIC.properties),"
            + " so a rerun resumes with no gap. Follows the journal until SIGTERM unless --to-end or --until-pid.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:shipped", "1:no broker answered through every retry (rerun to resume from the checkpoint)",
            "2:bad input (not a journal, unknown topic, bad options)",
            "143:stopped by SIGTERM (130: Ctrl-C), after writing the checkpoint"})
public final class ShipCli implements Callable<Integer> {
    public static final int EXIT_UNREACHABLE = 1;
    public static final int EXIT_BAD_INPUT = 2;

    @Parameters(index = "0", paramLabel = "JOURNAL_DIR", description = "the journal to ship")
    Path journal;

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers")
    String bootstrap;

    @Option(names = "--topic", required = true, paramLabel = "T", description = "the topic")
    String topic;

    @Option(names = "--host-id", paramLabel = "H", description = "host id (default: $VIGIL_HOST_ID, else the hostname); keep it stable")
    String hostId;

    @Option(names = "--create-topic", description = "create the topic if it does not exist (else: an error)")
    boolean createTopic;

    @Option(names = "--partitions", defaultValue = "3", description = "partitions of a created topic (default ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--replication-factor", defaultValue = "1", description = "replication factor of a created topic (default ${DEFAULT-VALUE})")
    short replication;

    @Option(names = "--to-end", description = "ship what the journal holds now, then exit")
    boolean toEnd;

    @Option(names = "--until-pid", paramLabel = "PID", description = "follow while process PID (the orchestrator) lives, then ship the rest and exit")
    Long untilPid;

    @Option(names = "--until-stdin-closed", description = {"follow until standard input closes (how `vigil run --ship` stops",
        "its shipper, and what happens when the orchestrator dies), then ship the rest and exit"})
    boolean untilStdinClosed;

    @Option(names = "--wait", defaultValue = "15", paramLabel = "S", description = "longest wait for the cluster per attempt, seconds (default ${DEFAULT-VALUE})")
    int waitSeconds;

    @Option(names = "--retries", defaultValue = "10", description = "retries in a row without progress before giving up (default ${DEFAULT-VALUE}, so at most ${DEFAULT-VALUE} + 1 attempts; 1 s, doubling, at most 5 s apart)")
    int retries;

    private PrintStream out = System.out;
    private PrintStream err = System.err;
    private volatile JournalShipper active;
    private final CountDownLatch finished = new CountDownLatch(1);

    public static void main(String[] args) {
        quietClientLogs();
        ShipCli cli = new ShipCli();
        Runtime.getRuntime().addShutdownHook(new Thread(cli::stopAndWait, "vigil-ship-stop"));
        int code = cli.execute(args);
        cli.finished.countDown();
        System.exit(code);
    }

    /** Kafka's clients log every refused connection; the shipper says what matters in one line. */
    static void quietClientLogs() {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
        }
    }

    private void stopAndWait() {
        JournalShipper s = active;
        if (s != null) {
            s.stopNow();
            try {
                finished.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    int execute(String... args) {
        CommandLine cl = new CommandLine(this);
        cl.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("ERR: " + ex.getMessage() + " (see: vigil ship --help)");
            return EXIT_BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, c, p) -> {
            err.println("ERR: " + oneLine(ex));
            return ex instanceof BrokerUnreachableException ? EXIT_UNREACHABLE : EXIT_BAD_INPUT;
        });
        return cl.execute(args);
    }

    @Override
    public Integer call() {
        if ((toEnd ? 1 : 0) + (untilPid != null ? 1 : 0) + (untilStdinClosed ? 1 : 0) > 1) {
            throw new FleetInputException("--to-end, --until-pid and --until-stdin-closed exclude each other");
        }
        if (partitions < 1 || replication < 1 || retries < 0 || waitSeconds < 1) {
            throw new FleetInputException("--partitions, --replication-factor and --wait must be >= 1, --retries >= 0");
        }
        String host = HostId.resolve(hostId);
        JournalShipper.Mode mode = toEnd ? JournalShipper.Mode.TO_END
                : untilPid != null ? JournalShipper.Mode.UNTIL_PID : JournalShipper.Mode.FOLLOW;
        JournalShipper shipper = new JournalShipper(new JournalShipper.Settings(journal, bootstrap, topic, host,
                createTopic ? partitions : 0, replication, retries, waitSeconds * 1000L, mode,
                untilPid == null ? -1 : untilPid), err);
        active = shipper;
        if (untilStdinClosed) {
            Thread watcher = new Thread(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // nothing is sent on the pipe; only its end matters
                    }
                } catch (java.io.IOException ignored) {
                    // a broken pipe is an end too
                }
                shipper.requestStop();
            }, "vigil-ship-stdin");
            watcher.setDaemon(true);
            watcher.start();
        }
        long t0 = System.nanoTime();
        JournalShipper.Result r = shipper.run();
        out.printf(Locale.ROOT, "shipped %d events (%d acknowledged) of journal %s to %s topic %s as host %s in %.1f s;"
                + " checkpoint index=%s%n", r.sent(), r.acknowledged(), journal, bootstrap, topic, host,
                (System.nanoTime() - t0) / 1e9, r.checkpoint() < 0 ? "none" : "0x" + Long.toHexString(r.checkpoint()));
        return 0;
    }

    private static String oneLine(Throwable t) {
        String m = t instanceof FleetInputException || t instanceof BrokerUnreachableException
                || t instanceof JournalException ? t.getMessage() : JournalException.plain(t);
        return m == null ? "no detail given" : m.replace('\n', ' ').replace('\r', ' ');
    }
}
