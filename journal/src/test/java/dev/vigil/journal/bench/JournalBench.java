package dev.vigil.journal.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import org.HdrHistogram.Histogram;

import dev.vigil.journal.EventCodec;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.SampleEvents;
import dev.vigil.journal.EventType;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The journal's write path against a raw Chronicle appender, side by side in one run (a benchmark,
 * not a test: it asserts nothing and is not run by the build). Per round and variant:
 * <ul>
 *   <li>{@code journal}: one producer thread calls {@link JournalWriter#append} as fast as it can;
 *       the clock stops when {@link JournalWriter#flush} returns, so events/s is the whole path
 *       publish -> ring -> appender thread -> file, sustained (the ring fills many times over).</li>
 *   <li>{@code journal-paced}: the same at a fixed offered rate, for publish latency without
 *       backpressure waits.</li>
 *   <li>{@code raw-scratch}: one thread, a raw Chronicle appender, {@link EventCodec#write} into a
 *       small direct buffer copied into each excerpt: the journal minus the ring and the thread hop.</li>
 *   <li>{@code raw-codec} (only when named): EventCodec straight into the mapped excerpt, field by
 *       field (the journal's first write path). It shows the codec a third Bytes class, which
 *       slows the other variants' codec calls in the same JVM, so it is not in the default set.</li>
 *   <li>{@code raw-bytes}: one thread, a raw Chronicle appender copying the same pre-encoded bytes.</li>
 * </ul>
 * Latency is of the call ({@code append}: every call; a whole raw excerpt write: one in 16, so
 * that timing does not slow the measured thread), read with System.nanoTime around it (so it
 * includes ~20 ns of clock reads), into an HdrHistogram.
 *
 * <pre>java @journal/target/jvm.options -cp "$(cat journal/target/test-classpath.txt):journal/target/classes:journal/target/test-classes" \
 *     dev.vigil.journal.bench.JournalBench [events=3000000] [rounds=3] [pacedRate=1000000] [variants=raw-bytes,raw-scratch,journal,journal-paced]</pre>
 */
public final class JournalBench {
    private static final int DISTINCT_EVENTS = 4096;

    private final int events;
    private final int rounds;
    private final long pacedRate;
    private final java.util.Set<String> variants;
    private final Path work;
    private final PrintStream out;
    private final JournalEvent[] sample = new JournalEvent[DISTINCT_EVENTS];
    private final byte[][] encoded = new byte[DISTINCT_EVENTS][];

    JournalBench(int events, int rounds, long pacedRate, java.util.Set<String> variants, Path work, PrintStream out) {
        this.variants = variants;
        this.events = events;
        this.rounds = rounds;
        this.pacedRate = pacedRate;
        this.work = work;
        this.out = out;
        for (int i = 0; i < DISTINCT_EVENTS; i++) {
            // Mostly mailbox transitions (the bulk of a real journal), one of every other kind now and then.
            sample[i] = i % 64 == 0 ? SampleEvents.sample(EventType.values()[(i / 64) % EventType.values().length], i)
                    : new MailboxTransition(1_000_000L * i, 4242, "pool-1", 0, "workers", i % 16, i, 1, 2, "child", 5000 + i % 16);
            // A direct buffer, as the appender's: the codec's JIT profile should see one Bytes class, not three.
            Bytes<?> b = Bytes.allocateElasticDirect(256);
            EventCodec.write(sample[i], b);
            encoded[i] = b.toByteArray();
            b.releaseLast();
        }
    }

    public static void main(String[] args) throws Exception {
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        long pacedRate = args.length > 2 ? Long.parseLong(args[2]) : 1_000_000;
        java.util.Set<String> variants = java.util.Set.of((args.length > 3 ? args[3]
                : "raw-bytes,raw-scratch,journal,journal-paced").split(","));
        Path work = Files.createTempDirectory("vigil-journal-bench");
        try {
            new JournalBench(events, rounds, pacedRate, variants, work, System.out).run();
        } finally {
            delete(work);
        }
    }

    void run() {
        int bytes = 0;
        for (byte[] e : encoded) {
            bytes += e.length;
        }
        out.printf(Locale.ROOT, "JournalBench: %,d events per run, %d rounds (+1 warm-up), paced rate %,d/s, "
                + "mean event %d bytes, %d cpus, java %s%n", events, rounds, pacedRate, bytes / DISTINCT_EVENTS,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        out.println("load average at start: " + loadAverage());
        out.println("variant         round  events/s      p50 ns  p90 ns  p99 ns  p99.9 ns  max us");
        java.util.Map<String, java.util.List<Result>> all = new java.util.TreeMap<>();
        for (int round = 0; round <= rounds; round++) {
            String r = round == 0 ? "warm" : Integer.toString(round);
            if (variants.contains("raw-bytes")) {
                report("raw-bytes", r, raw(work.resolve("raw-bytes-" + round), Encoding.PRE_ENCODED));
            }
            if (variants.contains("raw-codec")) {
                report("raw-codec", r, raw(work.resolve("raw-codec-" + round), Encoding.INTO_EXCERPT));
            }
            if (variants.contains("raw-scratch")) {
                report("raw-scratch", r, raw(work.resolve("raw-scratch-" + round), Encoding.SCRATCH_THEN_COPY));
            }
            if (variants.contains("journal")) {
                report("journal", r, journal(round));
            }
            if (variants.contains("journal-paced")) {
                report("journal-paced", r, journalPaced(round));
            }
            if (round > 0) {
                results.forEach((variant, result) -> all.computeIfAbsent(variant, v -> new java.util.ArrayList<>()).add(result));
            }
            results.clear();
        }
        out.println("load average at end: " + loadAverage());
        out.println("median over measured rounds:");
        java.util.Map<String, Double> medians = new java.util.TreeMap<>();
        all.forEach((variant, list) -> {
            double[] rates = list.stream().mapToDouble(Result::eventsPerSecond).sorted().toArray();
            long[] p50 = list.stream().mapToLong(x -> x.latency().getValueAtPercentile(50)).sorted().toArray();
            long[] p99 = list.stream().mapToLong(x -> x.latency().getValueAtPercentile(99)).sorted().toArray();
            double median = rates[rates.length / 2];
            medians.put(variant, median);
            out.printf(Locale.ROOT, "  %-15s %,12.0f events/s  p50 %d ns  p99 %d ns%n", variant, median,
                    p50[p50.length / 2], p99[p99.length / 2]);
        });
        if (medians.containsKey("journal") && medians.containsKey("raw-bytes")) {
            out.printf(Locale.ROOT, "raw-bytes / journal events/s = %.2f (target <= 2)%n",
                    medians.get("raw-bytes") / medians.get("journal"));
        }
        if (medians.containsKey("journal") && medians.containsKey("raw-scratch")) {
            out.printf(Locale.ROOT, "raw-scratch / journal events/s = %.2f%n",
                    medians.get("raw-scratch") / medians.get("journal"));
        }
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Events/s and the per-call latency histogram of one variant's run. */
    record Result(double eventsPerSecond, Histogram latency) {
    }

    /** How a raw variant gets an event's bytes into its excerpt. */
    enum Encoding {
        /** Copies bytes encoded before the run: the floor, Chronicle's own cost. */
        PRE_ENCODED,
        /** EventCodec writes field by field straight into the mapped excerpt. */
        INTO_EXCERPT,
        /** EventCodec writes into a small direct buffer, copied into the excerpt (what the journal's appender does). */
        SCRATCH_THEN_COPY
    }

    private Result raw(Path dir, Encoding encoding) {
        Histogram h = histogram();
        long start;
        long end;
        Bytes<?> scratch = Bytes.allocateElasticDirect(512);
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
             ExcerptAppender a = q.createAppender()) {
            start = System.nanoTime();
            for (int i = 0; i < events; i++) {
                int k = i & (DISTINCT_EVENTS - 1);
                // Timing every write would add two clock reads and a histogram update to the one
                // thread whose speed is measured here: sample one write in 16.
                boolean timed = (i & 15) == 0;
                long t0 = timed ? System.nanoTime() : 0;
                switch (encoding) {
                    case PRE_ENCODED -> {
                        try (DocumentContext dc = a.writingDocument()) {
                            dc.wire().bytes().write(encoded[k]);
                        }
                    }
                    case INTO_EXCERPT -> {
                        try (DocumentContext dc = a.writingDocument()) {
                            EventCodec.write(sample[k], dc.wire().bytes());
                        }
                    }
                    default -> {
                        scratch.clear();
                        EventCodec.write(sample[k], scratch);
                        try (DocumentContext dc = a.writingDocument()) {
                            dc.wire().bytes().write(scratch, scratch.readPosition(), scratch.readRemaining());
                        }
                    }
                }
                if (timed) {
                    h.recordValue(System.nanoTime() - t0);
                }
            }
            end = System.nanoTime();
        } finally {
            scratch.releaseLast();
        }
        delete(dir);
        return new Result(events * 1e9 / (end - start), h);
    }

    private Result journal(int round) {
        Path dir = work.resolve("journal-" + round);
        Histogram h = histogram();
        long start;
        long end;
        try (JournalWriter w = JournalWriter.open(dir)) {
            start = System.nanoTime();
            for (int i = 0; i < events; i++) {
                JournalEvent e = sample[i & (DISTINCT_EVENTS - 1)];
                long t0 = System.nanoTime();
                w.append(e);
                h.recordValue(System.nanoTime() - t0);
            }
            w.flush();
            end = System.nanoTime();
        }
        delete(dir);
        return new Result(events * 1e9 / (end - start), h);
    }

    /** Offers events at {@code pacedRate} (batches every 100 us); the rate achieved is what the journal kept up with. */
    private Result journalPaced(int round) {
        Path dir = work.resolve("journal-paced-" + round);
        Histogram h = histogram();
        long intervalNanos = 100_000;
        int perBatch = (int) Math.max(1, pacedRate * intervalNanos / 1_000_000_000L);
        long start;
        long end;
        try (JournalWriter w = JournalWriter.open(dir)) {
            start = System.nanoTime();
            long next = start;
            int i = 0;
            while (i < events) {
                for (int b = 0; b < perBatch && i < events; b++, i++) {
                    JournalEvent e = sample[i & (DISTINCT_EVENTS - 1)];
                    long t0 = System.nanoTime();
                    w.append(e);
                    h.recordValue(System.nanoTime() - t0);
                }
                next += intervalNanos;
                while (System.nanoTime() < next) {
                    Thread.onSpinWait();
                }
            }
            w.flush();
            end = System.nanoTime();
        }
        delete(dir);
        return new Result(events * 1e9 / (end - start), h);
    }

    private final java.util.Map<String, Result> results = new java.util.LinkedHashMap<>();

    private void report(String variant, String round, Result r) {
        results.put(variant, r);
        Histogram h = r.latency();
        out.printf(Locale.ROOT, "%-15s %-5s  %,12.0f  %6d  %6d  %6d  %8d  %6d%n", variant, round, r.eventsPerSecond(),
                h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), TimeUnit.NANOSECONDS.toMicros(h.getMaxValue()));
    }

    private static Histogram histogram() {
        return new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    }

    private static void delete(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> files = Files.walk(p)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        LockSupport.parkNanos(1);
    }
}
