package dev.vigil.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.replay.ReplayInputException;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.FleetSource;

/**
 * A Kafka topic of shipped journals, read from the start of every partition to the end offsets it
 * had when reading began (a live topic cannot keep a read going). Records are grouped by host and
 * de-duplicated by (host, journal index); each host's events are then replayed in journal-index
 * order, which is the order of its journal. Holds the raw event bodies of the topic in memory
 * (about 100 bytes per event): use a topic with a retention that suits, or --host.
 */
public final class KafkaFleetSource implements FleetSource {
    /** Longest wait for a poll that brings nothing while partitions are still behind their end. */
    static final Duration STALL = Duration.ofSeconds(30);
    /** Longest wait for the cluster's first answer. */
    static final long WAIT_MS = 15_000;

    private final String bootstrap;
    private final String topic;
    private final Map<String, NavigableMap<Long, ShippedRecord>> byHost = new TreeMap<>();
    private long records;
    private long duplicates;

    private KafkaFleetSource(String bootstrap, String topic) {
        this.bootstrap = bootstrap;
        this.topic = topic;
    }

    /** Reads the whole topic. Throws {@link ReplayInputException} for anything the replay cannot use. */
    public static KafkaFleetSource read(String bootstrap, String topic) {
        KafkaFleetSource s = new KafkaFleetSource(bootstrap, topic);
        try {
            KafkaTopics.describe(bootstrap, topic, 0, (short) 1, WAIT_MS);
            s.consumeAll();
        } catch (FleetInputException | BrokerUnreachableException e) {
            throw new ReplayInputException(e.getMessage());
        }
        return s;
    }

    private void consumeAll() {
        Properties p = KafkaTopics.clientBasics(bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(32 << 20));
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(topic, Duration.ofSeconds(10))
                    .forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(parts, Duration.ofSeconds(10)));
            long lastProgress = System.nanoTime();
            while (!behind(consumer, end).isEmpty()) {
                var batch = consumer.poll(Duration.ofMillis(200));
                if (!batch.isEmpty()) {
                    lastProgress = System.nanoTime();
                } else if (System.nanoTime() - lastProgress > STALL.toNanos()) {
                    throw new BrokerUnreachableException("reading topic " + topic + " at " + bootstrap
                            + " stalled for " + STALL.toSeconds() + " s with partitions " + behind(consumer, end)
                            + " short of their end", null);
                }
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    add(ShippedRecord.decode(r));
                }
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw KafkaTopics.unreachable(bootstrap, WAIT_MS, e);
        }
    }

    private static List<TopicPartition> behind(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        List<TopicPartition> out = new ArrayList<>();
        end.forEach((tp, offset) -> {
            if (consumer.position(tp, Duration.ofSeconds(10)) < offset) {
                out.add(tp);
            }
        });
        return out;
    }

    private void add(ShippedRecord r) {
        records++;
        ShippedRecord before = byHost.computeIfAbsent(r.host(), h -> new TreeMap<>()).putIfAbsent(r.index(), r);
        if (before != null) {
            duplicates++;
            if (!Arrays.equals(before.body(), r.body())) {
                throw new FleetInputException("topic " + topic + " holds two different events for host=" + r.host()
                        + " index=0x" + Long.toHexString(r.index()) + ": two journals ship under one host id"
                        + " (give each journal its own --host-id)");
            }
        }
    }

    /** Records read that repeated an event already read (re-sent after a shipper restart). */
    public long duplicates() {
        return duplicates;
    }

    /** Records read, duplicates among them (re-sent after a shipper restart), distinct events. */
    public String counts() {
        return records + " records, " + duplicates + " duplicates, " + (records - duplicates) + " events";
    }

    @Override
    public String describe() {
        return "kafka=" + bootstrap + " topic=" + topic;
    }

    @Override
    public List<String> hosts() {
        return List.copyOf(byHost.keySet());
    }

    @Override
    public EventSource host(String host) {
        NavigableMap<Long, ShippedRecord> events = byHost.get(host);
        if (events == null) {
            throw new ReplayInputException("host=" + host + " has no events in " + describe() + " (hosts: "
                    + (byHost.isEmpty() ? "none" : String.join(", ", byHost.keySet())) + ")");
        }
        return new HostJournal(describe() + " host=" + host, events);
    }

    @Override
    public void close() {
        byHost.clear();
    }

    /** One host's events, in journal-index order. */
    private record HostJournal(String name, NavigableMap<Long, ShippedRecord> events) implements EventSource {
        @Override
        public String describe() {
            return name;
        }

        @Override
        public long firstEventTime() {
            if (events.isEmpty()) {
                return 0;
            }
            return decoded(events.firstEntry().getValue(), t -> true).timeNanos();
        }

        @Override
        public long read(JournalReader.TypeFilter filter, JournalReader.EventSink sink) {
            long n = 0;
            for (Map.Entry<Long, ShippedRecord> en : events.entrySet()) {
                n++;
                JournalEvent e = decoded(en.getValue(), filter);
                if (e != null && !sink.accept(en.getKey(), e)) {
                    break;
                }
            }
            return n;
        }

        private static JournalEvent decoded(ShippedRecord r, JournalReader.TypeFilter filter) {
            try {
                return r.event(filter);
            } catch (FleetInputException e) {
                throw new ReplayInputException(e.getMessage());
            }
        }
    }
}
