package dev.vigil.fleet;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import dev.vigil.journal.JournalCorruptException;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;

import net.openhft.chronicle.bytes.Bytes;

/**
 * Tails one journal into one Kafka topic (docs/FLEET.md). Runs on its own thread or process and
 * only reads the journal, so it never slows the orchestrator's append path.
 *
 * <p>Delivery: idempotent producer, {@code acks=all}; the checkpoint beside the journal
 * ({@link ShipCheckpoint}) only ever names an index whose event and every event before it the
 * cluster acknowledged, so a shipper restarted after any crash resumes with no gap. Events between
 * the checkpoint and the crash are sent again; consumers drop them by (host, journal index).
 *
 * <p>Failures: an unreachable cluster or a failed send ends the attempt; the shipper waits (1 s,
 * doubling, at most 5 s) and starts over from the checkpoint, at most {@code retries} times in a
 * row (so {@code retries + 1} attempts), then gives up with {@link BrokerUnreachableException}. Progress resets the
 * count. A {@link #stopNow()} while waiting for the cluster ends the run at once, with the same exception.
 */
public final class JournalShipper {
    /** When shipping ends. */
    public enum Mode {
        /** Ship what the journal holds now, then stop. */
        TO_END,
        /** Follow the journal until stopped (SIGTERM). */
        FOLLOW,
        /** Follow the journal while a process (the orchestrator) lives, then ship the rest and stop. */
        UNTIL_PID
    }

    /** What a shipper is told. {@code createPartitions > 0} creates a missing topic. */
    public record Settings(Path journal, String bootstrap, String topic, String host, int createPartitions,
            short replication, int retries, long waitMs, Mode mode, long untilPid) {
    }

    /** What a finished run did. */
    public record Result(long sent, long acknowledged, long checkpoint, int attempts) {
    }

    private static final long CHECKPOINT_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long PID_CHECK_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Settings settings;
    private final ShipCheckpoint checkpoint;
    private final PrintStream log;
    private volatile boolean stopRequested;
    private volatile boolean stopNow;
    private Thread clusterWaiter;

    private final ConcurrentSkipListSet<Long> unacked = new ConcurrentSkipListSet<>();
    private final ConcurrentSkipListSet<Long> window = new ConcurrentSkipListSet<>();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final AtomicLong acknowledged = new AtomicLong();
    private long lastSent = -1;
    private long checkpointed;
    private long sent;
    private long lastCheckpointNanos;
    private long lastPidCheckNanos;
    private boolean pidAlive = true;

    public JournalShipper(Settings settings, PrintStream log) {
        this.settings = settings;
        this.log = log;
        this.checkpoint = new ShipCheckpoint(settings.journal(), settings.host(), settings.topic());
    }

    /**
     * Asks a running {@link #run()} to ship what it has read, write its checkpoint and return (the end of the run it
     * ships for: a run waiting for the cluster keeps trying, as what was read is still to be shipped).
     */
    public void requestStop() {
        stopRequested = true;
    }

    /**
     * A signal's stop (SIGTERM, Ctrl-C): as {@link #requestStop()}, and a run waiting for the cluster (an attempt's
     * topic check or the pause between attempts) ends at once with {@link BrokerUnreachableException}, as nothing is
     * in flight there and the process is about to end.
     */
    public synchronized void stopNow() {
        stopRequested = true;
        stopNow = true;
        if (clusterWaiter != null) {
            clusterWaiter.interrupt();
        }
    }

    private synchronized void waitingForCluster(boolean waiting) {
        clusterWaiter = waiting ? Thread.currentThread() : null;
        if (!waiting) {
            Thread.interrupted(); // a stop that came during the wait must not interrupt the journal reader
        }
    }

    public ShipCheckpoint checkpoint() {
        return checkpoint;
    }

    /** Ships until the mode says stop. Bad input throws {@link FleetInputException} or a JournalException. */
    public Result run() {
        JournalReader.open(settings.journal()).close(); // not a journal: the journal's own clear message
        checkpointed = checkpoint.load();
        int attempt = 0;
        int attempts = 0;
        while (true) {
            attempts++;
            long before = checkpointed;
            try {
                waitingForCluster(true);
                try {
                    if (stopNow) {
                        throw new BrokerUnreachableException("stopped", null); // said below, with the checkpoint
                    }
                    KafkaTopics.describe(settings.bootstrap(), settings.topic(), settings.createPartitions(),
                            settings.replication(), settings.waitMs());
                } finally {
                    waitingForCluster(false);
                }
                shipOnce();
                return new Result(sent, acknowledged.get(), checkpointed, attempts);
            } catch (BrokerUnreachableException | ShipFailedException e) {
                attempt = checkpointed != before ? 1 : attempt + 1;
                String what = e.getMessage() + (e.getCause() == null || e instanceof BrokerUnreachableException ? ""
                        : ": " + e.getCause().getMessage());
                String shippedUpTo = "shipped up to index=" + hex(checkpointed) + " (" + checkpoint.file()
                        + "), run ship again to resume";
                if (stopNow) {
                    throw new BrokerUnreachableException("stopped while waiting for a Kafka broker at "
                            + settings.bootstrap() + "; " + shippedUpTo, e);
                }
                int attemptsAtMost = settings.retries() + 1;
                if (attempt >= attemptsAtMost) {
                    throw new BrokerUnreachableException(what + "; gave up after " + attempt + " attempts in a row; "
                            + shippedUpTo, e);
                }
                long backoffMs = Math.min(5_000, 1_000L << Math.min(attempt - 1, 3));
                log.println("vigil ship: " + what + " (attempt " + attempt + "/" + attemptsAtMost
                        + "); resuming after index=" + hex(checkpointed) + " in " + backoffMs / 1000.0 + " s");
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
                while (System.nanoTime() < until && !stopNow) {
                    LockSupport.parkNanos(50_000_000);
                }
            }
        }
    }

    private void shipOnce() {
        failure.set(null);
        unacked.clear();
        window.clear();
        lastSent = checkpointed;
        Bytes<?> scratch = Bytes.allocateElasticOnHeap(512);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerSettings(), new ByteArraySerializer(),
                new ByteArraySerializer());
        boolean clean = false;
        JournalCorruptException damage = null;
        try {
            try (JournalReader reader = JournalReader.open(settings.journal())) {
                long skip = checkpointed;
                if (skip >= 0) {
                    if (!reader.fromIndex(skip)) {
                        throw new FleetInputException("checkpoint " + checkpoint.file() + " names index=" + hex(skip)
                                + " but journal dir=" + settings.journal() + " has no such event (another journal?)");
                    }
                } else {
                    reader.fromStart();
                }
                JournalReader.EventSink sink = (index, event) -> {
                    if (index == skip) {
                        return true;
                    }
                    if (failure.get() != null || !send(producer, scratch, index, event)) {
                        return false;
                    }
                    maybeCheckpoint();
                    return true;
                };
                try {
                    reader.follow(sink, keepWaiting());
                } catch (JournalCorruptException e) {
                    damage = e;
                    sendDamage(producer, e);
                }
            }
            producer.flush();
            Exception failed = failure.get();
            if (failed != null) {
                throw new ShipFailedException("sending to " + settings.bootstrap() + " topic " + settings.topic()
                        + " failed", failed);
            }
            writeCheckpoint();
            clean = true;
            if (damage != null) {
                throw damage; // shipped up to it, and said where it is; ShipCli names it and exits 2
            }
        } finally {
            if (!clean) {
                writeCheckpoint();
            }
            producer.close(clean ? Duration.ofSeconds(5) : Duration.ZERO);
        }
    }

    private BooleanSupplier keepWaiting() {
        return () -> {
            maybeCheckpoint();
            if (stopRequested || failure.get() != null) {
                return false;
            }
            switch (settings.mode()) {
                case TO_END:
                    return false;
                case UNTIL_PID:
                    long now = System.nanoTime();
                    if (now - lastPidCheckNanos > PID_CHECK_EVERY_NANOS) {
                        lastPidCheckNanos = now;
                        pidAlive = ProcessHandle.of(settings.untilPid()).map(ProcessHandle::isAlive).orElse(false);
                    }
                    return pidAlive;
                default:
                    return true;
            }
        };
    }

    private boolean send(KafkaProducer<byte[], byte[]> producer, Bytes<?> scratch, long index, JournalEvent event) {
        unacked.add(index);
        window.add(index);
        lastSent = index;
        sent++;
        try {
            producer.send(ShippedRecord.encode(settings.topic(), settings.host(), index, event, scratch), (md, ex) -> {
                if (ex == null) {
                    unacked.remove(index);
                    acknowledged.incrementAndGet();
                } else {
                    failure.compareAndSet(null, ex);
                }
            });
            return true;
        } catch (org.apache.kafka.common.KafkaException e) {
            failure.compareAndSet(null, e);
            return false;
        }
    }

    /**
     * Ships the record that says where the journal is damaged, after every event before it, so a replay of the topic
     * stops there with the reader's words instead of reading a shorter clean journal. Not checkpointed: a rerun reads
     * the damage again and ships the same record, which consumers keep once.
     */
    private void sendDamage(KafkaProducer<byte[], byte[]> producer, JournalCorruptException e) {
        long at = Math.max(e.index(), lastSent + 1);
        try {
            producer.send(ShippedRecord.damage(settings.topic(), settings.host(), at, e.getMessage()), (md, ex) -> {
                if (ex != null) {
                    failure.compareAndSet(null, ex);
                }
            });
        } catch (org.apache.kafka.common.KafkaException ke) {
            failure.compareAndSet(null, ke);
        }
    }

    private void maybeCheckpoint() {
        long now = System.nanoTime();
        if (now - lastCheckpointNanos >= CHECKPOINT_EVERY_NANOS) {
            lastCheckpointNanos = now;
            writeCheckpoint();
        }
    }

    /** Advances the checkpoint to the last index whose event and every event before it were acknowledged. */
    private void writeCheckpoint() {
        long safe;
        if (unacked.isEmpty()) {
            safe = lastSent;
        } else {
            Long below = window.lower(unacked.first());
            if (below == null) {
                return;
            }
            safe = below;
        }
        if (safe > checkpointed) {
            window.headSet(safe, true).clear();
            checkpoint.store(safe);
            checkpointed = safe;
        }
    }

    private Properties producerSettings() {
        Properties p = KafkaTopics.clientBasics(settings.bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(128 << 10));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(settings.waitMs()));
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "200");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "vigil-ship-" + settings.host());
        return p;
    }

    private static String hex(long index) {
        return index < 0 ? "none" : "0x" + Long.toHexString(index);
    }

    /** A send the cluster did not acknowledge in time; the attempt ends and starts over from the checkpoint. */
    static final class ShipFailedException extends RuntimeException {
        ShipFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
