package dev.vigil.fleet;

import dev.vigil.journal.bench.BenchSummary;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.PoolStarted;

import net.openhft.chronicle.bytes.Bytes;

/**
 * {@code bin/vigil-bench fleet}: shipping a journal to a real broker (bin/vigil-kafka, this machine)
 * against the local journal's append rate of the same events, in the same run, and the lag from
 * append to consumable. Prints the markdown section of docs/BENCHMARKS.md.
 *
 * <p>Arguments: WORK_DIR DEMO_JOURNAL [EVENTS] [LAG_RATE_PER_S] [LAG_SECONDS].
 */
public final class FleetBench {
    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "off");
        Path work = Path.of(args[0]);
        Path demo = Path.of(args[1]);
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 500_000;
        int rate = args.length > 3 ? Integer.parseInt(args[3]) : 5_000;
        int seconds = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        Files.createDirectories(work);
        String loadBefore = load();
        try (Broker broker = Broker.start(work.resolve("kafka"), work)) {
            new FleetBench(broker.bootstrap(), work).run(demo, n, rate, seconds, loadBefore, System.out);
        }
    }

    private final String bootstrap;
    private final Path work;

    private FleetBench(String bootstrap, Path work) {
        this.bootstrap = bootstrap;
        this.work = work;
    }

    private void run(Path demo, int n, int rate, int seconds, String loadBefore, PrintStream out) throws Exception {
        // What a close costs: events and bytes, from a journal of the demo.
        List<JournalEvent> mix = new ArrayList<>();
        long[] closes = {0};
        try (JournalReader r = JournalReader.open(demo)) {
            r.fromStart().readAll((i, e) -> {
                mix.add(e);
                closes[0] += e instanceof CloseCompleted ? 1 : 0;
                return true;
            });
        }
        Bytes<?> scratch = Bytes.allocateElasticOnHeap(512);
        long bodyBytes = 0;
        long recordBytes = 0;
        for (JournalEvent e : mix) {
            var rec = ShippedRecord.encode("t", "host-01", 0x5135_0000_0000L, e, scratch);
            bodyBytes += rec.value().length;
            recordBytes += rec.key().length + rec.value().length;
            for (var h : rec.headers()) {
                recordBytes += h.key().length() + h.value().length;
            }
        }

        // Baseline: the same events appended to a local journal (the orchestrator's write path).
        Path journal = work.resolve("bench-journal");
        long t0 = System.nanoTime();
        try (JournalWriter w = JournalWriter.open(journal)) {
            for (int i = 0; i < n; i++) {
                w.append(mix.get(i % mix.size()));
            }
            w.flush();
        }
        double appendSeconds = (System.nanoTime() - t0) / 1e9;

        // Shipping the journal: produced, acknowledged by the broker (acks=all, idempotent), checkpointed.
        String topic = topic("bench-ship");
        t0 = System.nanoTime();
        JournalShipper.Result shipped = new JournalShipper(new JournalShipper.Settings(journal, bootstrap, topic, "host-01",
                0, (short) 1, 3, 8_000, JournalShipper.Mode.TO_END, -1), System.err).run();
        double shipSeconds = (System.nanoTime() - t0) / 1e9;
        if (shipped.acknowledged() != n) {
            throw new IllegalStateException("shipped " + shipped + " of " + n);
        }
        long diskBytes = topicBytes(topic);

        // Lag: events appended at a steady rate, shipped by a following shipper, consumed from the topic.
        Histogram lag = lag(rate, seconds);
        String loadAfter = load();

        out.printf(Locale.ROOT, "Run %s UTC on %d cores; load average before %s, after %s. Broker: bin/vigil-kafka "
                + "(single node, KRaft, heap 512 MB) on this machine, topic of 3 partitions, replication factor 1.%n%n",
                java.time.LocalDateTime.now(java.time.ZoneOffset.UTC).withNano(0), Runtime.getRuntime().availableProcessors(),
                loadBefore, loadAfter);
        out.printf(Locale.ROOT, "Event mix: the %d events of a `vigil demo` journal (%d closes: %.0f events per close,"
                + " pool start-up and control work included), cycled to %,d events. Mean event body %.0f bytes; as a"
                + " Kafka record (key, value, headers) %.0f bytes; in the broker's log after lz4 batches %.1f bytes.%n%n",
                mix.size(), closes[0], closes[0] == 0 ? 0.0 : (double) mix.size() / closes[0], n,
                (double) bodyBytes / mix.size(), (double) recordBytes / mix.size(), (double) diskBytes / n);
        out.println("| what | events/s | time | ratio |");
        out.println("|---|---|---|---|");
        out.printf(Locale.ROOT, "| baseline: local journal append (JournalWriter, flushed) | %,.0f | %.2f s | 1 |%n",
                n / appendSeconds, appendSeconds);
        out.printf(Locale.ROOT, "| vigil ship: journal -> broker, every event acknowledged (acks=all) and checkpointed"
                + " | %,.0f | %.2f s | %.2fx of append |%n", n / shipSeconds, shipSeconds, appendSeconds / shipSeconds);
        out.println();
        out.printf(Locale.ROOT, "End-to-end lag from append to consumable (a consumer in the same JVM; CLOCK_MONOTONIC"
                + " stamp in the event vs receipt), %,d events at %,d events/s for %d s: p50 %.1f ms, p99 %.1f ms,"
                + " max %.1f ms (linger.ms=5, the shipper's 1 ms poll).%n",
                lag.getTotalCount(), rate, seconds, lag.getValueAtPercentile(50) / 1e6,
                lag.getValueAtPercentile(99) / 1e6, lag.getMaxValue() / 1e6);
        BenchSummary.reported("journal shipped to a local broker (acks=all, checkpointed), events/s",
                String.format(Locale.ROOT, "%,.0f", n / shipSeconds),
                String.format(Locale.ROOT, "local journal append of the same events %,.0f", n / appendSeconds),
                BenchSummary.ratio(appendSeconds / shipSeconds) + " of append").print(out);
        BenchSummary.reported(String.format(Locale.ROOT, "append to consumable lag at %,d events/s, p50 / p99", rate),
                String.format(Locale.ROOT, "%.1f / %.1f ms", lag.getValueAtPercentile(50) / 1e6, lag.getValueAtPercentile(99) / 1e6),
                "", "").print(out);
    }

    private Histogram lag(int rate, int seconds) throws Exception {
        String topic = topic("bench-lag");
        Path journal = work.resolve("lag-journal");
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        int total = rate * seconds;
        AtomicLong received = new AtomicLong();
        JournalShipper shipper = new JournalShipper(new JournalShipper.Settings(journal, bootstrap, topic, "host-01",
                0, (short) 1, 3, 8_000, JournalShipper.Mode.FOLLOW, -1), System.err);
        try (JournalWriter w = JournalWriter.open(journal);
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
                        new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            consumer.poll(Duration.ofMillis(100));
            w.append(new PoolStarted(System.nanoTime(), 1, "warm-up", 0, "host-01", "sticky", 1, 1));
            w.flush();
            Thread ship = new Thread(shipper::run, "bench-shipper");
            ship.start();
            Thread consume = new Thread(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 60L);
                while (received.get() < total && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(50))) {
                        long now = System.nanoTime();
                        JournalEvent e = ShippedRecord.decode(r).event(t -> true);
                        if (!"warm-up".equals(e.poolId())) {
                            h.recordValue(Math.min(now - e.timeNanos(), h.getHighestTrackableValue()));
                            received.incrementAndGet();
                        }
                    }
                }
            }, "bench-consumer");
            consume.start();
            long start = System.nanoTime();
            long period = TimeUnit.SECONDS.toNanos(1) / rate;
            for (int i = 0; i < total; i++) {
                long due = start + i * period;
                while (System.nanoTime() < due) {
                    LockSupport.parkNanos(Math.max(1, due - System.nanoTime()));
                }
                w.append(new PoolStarted(System.nanoTime(), 1, "pool-" + (i % 8), 0, "host-01", "sticky", 1, 4));
            }
            w.flush();
            consume.join(TimeUnit.SECONDS.toMillis(seconds + 70L));
            shipper.requestStop();
            ship.join(30_000);
        }
        if (received.get() < total) {
            throw new IllegalStateException("lag run: consumed " + received.get() + " of " + total);
        }
        return h;
    }

    private String topic(String prefix) throws Exception {
        String topic = prefix + "-" + UUID.randomUUID();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        return topic;
    }

    /** Bytes of the topic's log segments in the broker's data directory. */
    private long topicBytes(String topic) throws IOException {
        long total = 0;
        try (var dirs = Files.list(work.resolve("kafka").resolve("data"))) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().startsWith(topic + "-")).toList()) {
                try (var files = Files.list(d)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                        total += Files.size(f);
                    }
                }
            }
        }
        return total;
    }

    private static String load() throws IOException {
        String[] parts = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ");
        return parts[0] + " " + parts[1] + " " + parts[2];
    }
}
