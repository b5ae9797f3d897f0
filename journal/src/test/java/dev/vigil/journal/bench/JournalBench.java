package dev.vigil.journal.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 *       backpressure waits (half a second of the rate a round).</li>
 *   <li>{@code journal-trickle} (only when named): 100 events every millisecond, the producer parked in between, for
 *       the CPU an event costs both threads when the appender keeps up (wake-ups, spins, naps);
 *       {@code journal-trickle-spin-N} the same with the appender spinning N us before it blocks.</li>
 *   <li>{@code raw-scratch}: one thread, a raw Chronicle appender, {@link EventCodec#write} into a
 *       small direct buffer copied into each excerpt: the journal minus the ring and the thread hop.</li>
 *   <li>{@code raw-codec} (only when named): EventCodec straight into the mapped excerpt, field by
 *       field (the journal's first write path). It shows the codec a third Bytes class, which
 *       slows the other variants' codec calls in the same JVM, so it is not in the default set.</li>
 *   <li>{@code raw-bytes}: one thread, a raw Chronicle appender copying the same pre-encoded bytes.</li>
 *   <li>{@code raw-writebytes} (only when named): the same bytes through {@code ExcerptAppender.writeBytes} from
 *       off-heap copies, the way the journal's appender writes an excerpt whose pages are reserved.</li>
 *   <li>{@code journal-writing-document}, {@code journal-no-pages-thread}, {@code journal-no-nap} (only when named):
 *       the journal with every excerpt through writingDocument, without its pages thread, or with an appender that
 *       takes what it finds without a nap ({@link JournalWriter}'s batch nap), for comparison in the same JVM;
 *       {@code journal-paced-no-nap} the last at the paced rate; {@code journal-ring-N} the journal with a ring of N
 *       slots.</li>
 * </ul>
 * Before the rounds it checks the method: both sides write the same documents, byte for byte, into queues alike
 * ({@link #sameDocuments}).
 *
 * <p>The method, for a fair A/B on a small shared machine: in a round each measured variant (default raw-bytes and
 * journal) has a queue of its own open, its first event written before any clock starts (queue file and appender made
 * on both sides), and the variants take turns writing {@value #SLICE} events, the order turned by one every turn
 * (AB BA AB ...). A variant's time and CPU in a round are summed over its turns, so both sample the load of the whole
 * round alike; a ratio is taken per round, then the median and quartiles of the rounds' ratios (five unmeasured rounds
 * first). Before, whole runs one after the other (3,000,000 events, 5 rounds, two more variants between the pair) gave
 * per-round ratios of 0.4-3.1 on this 2-core VM, whose other processes come and go within a second. Writer CPU is
 * thread CPU time (the raw loop's thread against the journal's appender and pages threads), and the whole JVM's CPU
 * time (every thread) is printed beside it. The extra variants (default raw-scratch and journal-paced) run three
 * rounds after, for their own figures.
 *
 * <p>Latency is of the call ({@code append}, or a whole raw excerpt write: one in 16 each, so
 * that timing does not slow the measured threads), read with System.nanoTime around it (so it
 * includes ~20 ns of clock reads), into an HdrHistogram.
 *
 * <pre>java @journal/target/jvm.options -cp "$(cat journal/target/test-classpath.txt):journal/target/classes:journal/target/test-classes" \
 *     dev.vigil.journal.bench.JournalBench [events=1000000] [rounds=21] [pacedRate=1000000] [measured=raw-bytes,journal] [extras=raw-scratch,journal-paced]</pre>
 * An A/B of one of the journal's ways: {@code JournalBench 1000000 21 1000000 journal,journal-no-nap ""}.
 */
public final class JournalBench {
    private static final int DISTINCT_EVENTS = 4096;

    private final int events;
    private final int rounds;
    private final long pacedRate;
    private final java.util.List<String> measured;
    private final java.util.List<String> extras;
    private final Path work;
    private final PrintStream out;
    private final JournalEvent[] sample = new JournalEvent[DISTINCT_EVENTS];
    private final byte[][] encoded = new byte[DISTINCT_EVENTS][];

    JournalBench(int events, int rounds, long pacedRate, java.util.List<String> measured, java.util.List<String> extras,
            Path work, PrintStream out) {
        this.measured = measured;
        this.extras = extras;
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
        // Many rounds of turns (see rounds()): 3,000,000 events x 5 rounds, each variant's run whole and two more
        // variants between raw-bytes and journal, gave per-round ratios of 0.4-3.1 (2026-12-04).
        int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        long pacedRate = args.length > 2 ? Long.parseLong(args[2]) : 1_000_000;
        java.util.List<String> measured = java.util.List.of((args.length > 3 ? args[3] : "raw-bytes,journal").split(","));
        java.util.List<String> extras = args.length > 4 && args[4].isEmpty() ? java.util.List.of()
                : java.util.List.of((args.length > 4 ? args[4] : "raw-scratch,journal-paced").split(","));
        Path work = Files.createTempDirectory("vigil-journal-bench");
        try {
            new JournalBench(events, rounds, pacedRate, measured, extras, work, System.out).run();
        } finally {
            delete(work);
        }
    }

    /**
     * Unmeasured rounds first, so that both sides' code is compiled before it is timed: with three, the JIT still made
     * 200 compilations in the first measured round (-XX:+PrintCompilation; the other event kinds, one in 64, come
     * slowly), on a core the journal's two threads need.
     */
    static final int WARM_ROUNDS = 5;
    /** The rate offered to journal-trickle: 100 events every millisecond, its producer parked in between. */
    static final long TRICKLE_RATE = 100_000;
    /** Events a variant writes at a turn (see {@link #rounds}). */
    static final int SLICE = 100_000;
    /** Rounds of the extra variants (their own figures only: no ratio is taken against them). */
    static final int EXTRA_ROUNDS = 3;

    void run() {
        int bytes = 0;
        for (byte[] e : encoded) {
            bytes += e.length;
        }
        out.printf(Locale.ROOT, "JournalBench: %,d events per run, %d rounds of %s (+%d warm-up), then %d of %s; paced rate"
                + " %,d/s, mean event %d bytes, %d cpus, java %s%n", events, rounds, measured, WARM_ROUNDS, EXTRA_ROUNDS,
                extras, pacedRate, bytes / DISTINCT_EVENTS, Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        out.println("method: in a round each variant has a queue open (its first event written before any clock starts),"
                + " and they take turns writing " + String.format(Locale.ROOT, "%,d", SLICE) + " events, the order turned"
                + " by one every turn (AB BA AB ...); a variant's time and CPU in a round are summed over its turns, a"
                + " ratio is taken per round, then its median and quartiles");
        out.println("load average at start: " + loadAverage());
        sameDocuments(work.resolve("same-documents"));
        out.println("variant         round  events/s      p50 ns  p90 ns  p99 ns  p99.9 ns  max us  writer-cpu ns/ev  producer-cpu ns/ev  process-cpu ns/ev  events/batch");
        java.util.Map<String, java.util.List<Result>> all = rounds(measured, rounds, WARM_ROUNDS);
        java.util.Map<String, java.util.List<Result>> extra = rounds(extras, EXTRA_ROUNDS, 0);
        out.println("load average at end: " + loadAverage());
        out.println("median over measured rounds:");
        java.util.Map<String, java.util.List<Result>> every = new java.util.TreeMap<>(all);
        every.putAll(extra);
        every.forEach((variant, list) -> {
            long[] p50 = list.stream().mapToLong(x -> x.latency().getValueAtPercentile(50)).sorted().toArray();
            long[] p99 = list.stream().mapToLong(x -> x.latency().getValueAtPercentile(99)).sorted().toArray();
            double cpu = median(every, variant, Result::writerCpu);
            out.printf(Locale.ROOT, "  %-15s %,12.0f events/s  p50 %d ns  p99 %d ns  writer cpu %.0f ns/event (%,.0f events/s on a core of its own)%n",
                    variant, median(every, variant, Result::eventsPerSecond), p50[p50.length / 2], p99[p99.length / 2],
                    cpu, 1e9 / cpu);
        });
        Ratio rate = printRatio(all, "raw-bytes", "journal", Result::eventsPerSecond, "events/s", " (target <= 1.25)");
        Ratio cpu = printRatio(all, "journal", "raw-bytes", Result::writerCpu, "writer cpu/event", " (target <= 1.5)");
        // append encodes on the producer's thread: the whole path's CPU is both threads', against the raw loop's one.
        Ratio both = printRatio(all, "journal", "raw-bytes", JournalBench::bothThreadsCpu, "cpu/event of both threads",
                " (journal: producer + appender; raw: its one thread)");
        printRatio(all, "journal", "raw-bytes", Result::processCpu, "whole-process cpu/event", " (every thread of the JVM)");
        // Any other pair of the measured variants (the journal's ways turned off, the raw appender's other ways).
        for (String a : measured) {
            for (String b : measured) {
                boolean main = a.equals("raw-bytes") && b.equals("journal") || a.equals("journal") && b.equals("raw-bytes");
                if (!main && a.compareTo(b) < 0) {
                    printRatio(all, a, b, Result::eventsPerSecond, "events/s", "");
                    printRatio(all, a, b, Result::writerCpu, "writer cpu/event", "");
                    printRatio(all, a, b, JournalBench::bothThreadsCpu, "cpu/event of both threads", "");
                }
            }
        }
        if (measured.contains("journal")) {
            idleAppender(work.resolve("journal-idle"));
        }
        if (rate != null) {
            new BenchSummary("journal write path: events/s (" + String.format(Locale.ROOT, "%,d", events) + " events, median of "
                    + rounds + " rounds' ratios)", millions(median(all, "journal", Result::eventsPerSecond)) + " M/s",
                    "raw Chronicle appender writing the same bytes " + millions(median(all, "raw-bytes", Result::eventsPerSecond))
                    + " M/s", rate.cell() + " raw/journal", "<= 1.25x", rate.median() <= 1.25).print(out);
            new BenchSummary("journal writer CPU per event", Math.round(median(all, "journal", Result::writerCpu)) + " ns",
                    "raw appender thread " + Math.round(median(all, "raw-bytes", Result::writerCpu)) + " ns",
                    cpu.cell(), "<= 1.5x", cpu.median() <= 1.5).print(out);
            BenchSummary.reported("journal CPU per event, both threads (append's caller, which encodes, + appender)",
                    Math.round(median(all, "journal", JournalBench::bothThreadsCpu)) + " ns",
                    "raw appender thread (encoded before the run) " + Math.round(median(all, "raw-bytes", Result::writerCpu))
                    + " ns", both.cell()).print(out);
        }
    }

    /**
     * Runs {@code variants} {@code warm} rounds unmeasured, then {@code rounds} measured. In a round every variant has a
     * queue open, and they take turns writing a slice of {@link #SLICE} events, so that each variant's time and CPU in a
     * round is summed over slices spread across the whole round: two variants sample the same load, where two runs one
     * after the other each met their own (the other processes on this machine come and go within a second). The order
     * in a turn is turned by one every turn and every round (two variants: AB BA AB ...). Returns each variant's
     * results, round by round.
     */
    private java.util.Map<String, java.util.List<Result>> rounds(java.util.List<String> variants, int rounds, int warm) {
        java.util.Map<String, java.util.List<Result>> all = new java.util.TreeMap<>();
        for (int round = -warm; round < rounds; round++) {
            String r = round < 0 ? "warm" : Integer.toString(round + 1);
            java.util.Map<String, Side> sides = new java.util.LinkedHashMap<>();
            java.util.Map<String, Tally> tallies = new java.util.LinkedHashMap<>();
            try {
                for (String variant : variants) {
                    sides.put(variant, open(variant, work.resolve(variant + "-" + r)));
                    tallies.put(variant, new Tally());
                }
                int turn = Math.floorMod(round, Math.max(1, variants.size()));
                for (int from = 0; from < events; from += SLICE, turn++) {
                    for (int k = 0; k < variants.size(); k++) {
                        String variant = variants.get((k + turn) % variants.size());
                        int count = Math.min(SLICE, sides.get(variant).eventsPerRound(events) - from);
                        if (count > 0) {
                            timeSlice(sides.get(variant), from, count, tallies.get(variant));
                        }
                    }
                }
            } finally {
                sides.values().forEach(Side::close);
            }
            tallies.forEach((variant, tally) -> {
                Result result = tally.result();
                report(variant, r, result);
                if (!r.equals("warm")) {
                    all.computeIfAbsent(variant, v -> new java.util.ArrayList<>()).add(result);
                }
            });
        }
        return all;
    }

    /**
     * Checks the method: the journal and the raw appender write the same documents (byte for byte, one event each)
     * into queues alike (roll cycle, index layout, file system), so that events/s compares like with like. Writes two
     * rounds of the sample both ways and reads both queues back; throws on any difference.
     */
    private void sameDocuments(Path dir) {
        int n = 2 * DISTINCT_EVENTS;
        Path journalDir = dir.resolve("journal");
        Path rawDir = dir.resolve("raw");
        try (JournalWriter w = JournalWriter.open(journalDir)) {
            for (int i = 0; i < n; i++) {
                w.append(sample[i % DISTINCT_EVENTS]);
            }
        }
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(rawDir.toFile()).build();
             ExcerptAppender a = q.createAppender()) {
            for (int i = 0; i < n; i++) {
                try (DocumentContext dc = a.writingDocument()) {
                    dc.wire().bytes().write(encoded[i % DISTINCT_EVENTS]);
                }
            }
        }
        try (SingleChronicleQueue j = SingleChronicleQueueBuilder.binary(journalDir.toFile()).readOnly(true).build();
             SingleChronicleQueue r = SingleChronicleQueueBuilder.binary(rawDir.toFile()).readOnly(true).build();
             net.openhft.chronicle.queue.ExcerptTailer jt = j.createTailer();
             net.openhft.chronicle.queue.ExcerptTailer rt = r.createTailer()) {
            String journalQueue = j.rollCycle() + " indexCount " + j.indexCount() + " indexSpacing " + j.indexSpacing();
            String rawQueue = r.rollCycle() + " indexCount " + r.indexCount() + " indexSpacing " + r.indexSpacing();
            if (!journalQueue.equals(rawQueue)) {
                throw new IllegalStateException("the journal's queue (" + journalQueue + ") is not like the raw one (" + rawQueue + ")");
            }
            for (int i = 0; ; i++) {
                try (DocumentContext jd = jt.readingDocument(); DocumentContext rd = rt.readingDocument()) {
                    if (jd.isPresent() != rd.isPresent()) {
                        throw new IllegalStateException("document " + i + ": in one queue only (journal " + jd.isPresent() + ")");
                    }
                    if (!jd.isPresent()) {
                        if (i != n) {
                            throw new IllegalStateException(i + " documents in each queue, " + n + " written");
                        }
                        break;
                    }
                    if (!java.util.Arrays.equals(jd.wire().bytes().toByteArray(), rd.wire().bytes().toByteArray())) {
                        throw new IllegalStateException("document " + i + " differs between the journal and the raw appender");
                    }
                }
            }
            out.printf(Locale.ROOT, "same documents: %,d events written both ways read back byte for byte equal, one per"
                    + " document; both queues %s, on %s%n", n, journalQueue, fileStore(dir));
        } finally {
            delete(dir);
        }
    }

    private static String fileStore(Path dir) {
        try {
            java.nio.file.FileStore store = Files.getFileStore(dir);
            return store.toString() + " (" + store.type() + ")";
        } catch (IOException e) {
            return "unknown file system";
        }
    }

    private Side open(String variant, Path dir) {
        return switch (variant) {
            case "raw-bytes" -> new RawSide(dir, Encoding.PRE_ENCODED);
            case "raw-codec" -> new RawSide(dir, Encoding.INTO_EXCERPT);
            case "raw-writebytes" -> new RawSide(dir, Encoding.WRITE_BYTES);
            case "raw-scratch" -> new RawSide(dir, Encoding.SCRATCH_THEN_COPY);
            case "journal" -> new JournalSide(dir, 0);
            case "journal-no-pages-thread" -> with("vigil.journal.pagesAhead", () -> new JournalSide(dir, 0));
            case "journal-writing-document" -> with("vigil.journal.writeBytes", () -> new JournalSide(dir, 0));
            case "journal-no-nap" -> with("vigil.journal.batchNap", () -> new JournalSide(dir, 0));
            case "journal-paced" -> new JournalSide(dir, pacedRate);
            case "journal-paced-no-nap" -> with("vigil.journal.batchNap", () -> new JournalSide(dir, pacedRate));
            case "journal-trickle" -> new JournalSide(dir, TRICKLE_RATE, 1_000_000, true, JournalWriter.DEFAULT_RING_SIZE);
            default -> {
                if (variant.startsWith("journal-trickle-spin-")) { // the trickle, the appender spinning N us
                    String us = variant.substring("journal-trickle-spin-".length());
                    yield withValue("vigil.journal.spinMicros", us,
                            () -> new JournalSide(dir, TRICKLE_RATE, 1_000_000, true, JournalWriter.DEFAULT_RING_SIZE));
                }
                if (variant.startsWith("journal-ring-")) { // another ring size, e.g. journal-ring-8192
                    yield new JournalSide(dir, 0, 100_000, false, Integer.parseInt(variant.substring("journal-ring-".length())));
                }
                throw new IllegalArgumentException("unknown variant " + variant);
            }
        };
    }

    /**
     * The journal with one of its ways turned off for comparison: {@code vigil.journal.pagesAhead} (the appender reserves
     * every chunk of pages itself, no pages thread), {@code vigil.journal.writeBytes} (every excerpt through
     * writingDocument), {@code vigil.journal.batchNap} (the appender takes what it finds without a nap).
     */
    private static Side with(String offProperty, java.util.function.Supplier<Side> run) {
        return withValue(offProperty, "false", run);
    }

    private static Side withValue(String property, String value, java.util.function.Supplier<Side> run) {
        System.setProperty(property, value);
        try {
            return run.get();
        } finally {
            System.clearProperty(property);
        }
    }

    /**
     * The appender thread's CPU while its journal is open and idle (one event written, then nothing for 5 s), as a
     * share of a core. The raw appender has no thread of its own, so its idle cost is none: the target is absolute.
     */
    private void idleAppender(Path dir) {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        try (JournalWriter w = JournalWriter.open(dir)) {
            w.append(sample[0]);
            w.flush();
            Thread appender = appenderThread();
            long cpu0 = mx.getThreadCpuTime(appender.getId());
            long t0 = System.nanoTime();
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000_000L);
            double share = (mx.getThreadCpuTime(appender.getId()) - cpu0) / (double) (System.nanoTime() - t0);
            out.printf(Locale.ROOT, "idle journal: appender thread CPU %.4f %% of a core over 5 s%n", share * 100);
            new BenchSummary("journal appender CPU while the journal is open and idle (5 s)",
                    String.format(Locale.ROOT, "%.4f %% of a core", share * 100), "raw appender: no thread of its own",
                    "", "<= 0.1 % of a core", share <= 0.001).print(out);
        }
    }

    /** CPU per event of every thread the variant runs: the raw loop's one, or the journal's producer and appender. */
    private static double bothThreadsCpu(Result r) {
        return r.writerCpu() + Math.max(0, r.producerCpu());
    }

    private static double median(java.util.Map<String, java.util.List<Result>> all, String variant,
            java.util.function.ToDoubleFunction<Result> metric) {
        double[] v = all.get(variant).stream().mapToDouble(metric).sorted().toArray();
        return v[v.length / 2];
    }

    private static String millions(double perSecond) {
        return String.format(Locale.ROOT, "%.2f", perSecond / 1e6);
    }

    /** The median of the rounds' ratios and their quartiles. */
    record Ratio(double median, double low, double high) {
        /** As the summary table shows it: the median, then the quartiles, so that the spread is seen beside it. */
        String cell() {
            return BenchSummary.ratio(median) + String.format(Locale.ROOT, " (quartiles %.2f-%.2f)", low, high);
        }
    }

    /**
     * {@code metric(a) / metric(b)} per round (the two took turns through it, so they shared the
     * machine's load of the moment), then the median and quartiles; null when one did not run.
     */
    private Ratio printRatio(java.util.Map<String, java.util.List<Result>> all, String a, String b,
            java.util.function.ToDoubleFunction<Result> metric, String what, String note) {
        java.util.List<Result> as = all.get(a);
        java.util.List<Result> bs = all.get(b);
        if (as == null || bs == null) {
            return null;
        }
        double[] ratios = new double[as.size()];
        StringBuilder rounds = new StringBuilder();
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = metric.applyAsDouble(as.get(i)) / metric.applyAsDouble(bs.get(i));
            rounds.append(String.format(Locale.ROOT, " %.2f", ratios[i]));
        }
        java.util.Arrays.sort(ratios);
        Ratio r = new Ratio(ratios[ratios.length / 2], ratios[ratios.length / 4], ratios[(3 * ratios.length) / 4]);
        out.printf(Locale.ROOT, "%s %s / %s per round:%s; median %.2f (quartiles %.2f-%.2f)%s%n", what, a, b, rounds,
                r.median(), r.low(), r.high(), note);
        return r;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Events/s and the per-call latency histogram of one variant's run. */
    /**
     * @param writerCpu CPU time per event of the thread that writes the file (the raw loop's
     *     thread, or the journal's appender thread with its pages thread, which zeroes the file's pages ahead of it as
     *     the raw thread's page faults do for it): what bounds events/s when it has a core to
     *     itself, and unlike wall time barely moved by other processes on the machine
     * @param producerCpu CPU time per event of the journal's producer thread (with its clock reads
     *     and histogram updates), -1 for the raw variants
     * @param processCpu CPU time per event of the whole JVM (every thread, the compiler's and the collector's too),
     *     the like-for-like figure of the two sides as processes
     * @param eventsPerBatch events the journal's appender took from its ring at a time, on average ({@link
     *     JournalWriter#appenderBatches}): a few when it ran right behind the producer, thousands when the ring was full;
     *     -1 for the raw variants
     */
    record Result(double eventsPerSecond, Histogram latency, double writerCpu, double producerCpu, double processCpu,
            double eventsPerBatch) {
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static long cpuNanos(long threadId) {
        return THREADS.getThreadCpuTime(threadId);
    }

    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** CPU time so far of the whole JVM (getrusage's user + system of every thread). */
    private static long processCpuNanos() {
        return PROCESS.getProcessCpuTime();
    }

    /**
     * CPU time so far of the pages thread of the journal whose appender is {@code appender} (PagesAhead names it after
     * its appender: vigil-journal-pages-N for vigil-journal-appender-N), 0 before it started.
     */
    private static long pagesThreadCpu(Thread appender) {
        String name = "vigil-journal-pages-" + appender.getName().substring("vigil-journal-appender-".length());
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(name) && t.isAlive()) {
                return Math.max(0, cpuNanos(t.getId()));
            }
        }
        return 0;
    }

    /** The newest journal appender thread: the one the writer just opened started. */
    private static Thread appenderThread() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("vigil-journal-appender-") && t.isAlive())
                .max(java.util.Comparator.comparingLong(Thread::getId))
                .orElseThrow(() -> new IllegalStateException("no vigil-journal-appender thread"));
    }

    /** How a raw variant gets an event's bytes into its excerpt. */
    enum Encoding {
        /** Copies bytes encoded before the run: the floor, Chronicle's own cost. */
        PRE_ENCODED,
        /** Copies bytes encoded before the run (off heap) through {@code ExcerptAppender.writeBytes(BytesStore)}. */
        WRITE_BYTES,
        /** EventCodec writes field by field straight into the mapped excerpt. */
        INTO_EXCERPT,
        /** EventCodec writes into a small direct buffer, copied into the excerpt (what the journal's appender does). */
        SCRATCH_THEN_COPY
    }

    /**
     * One variant's queue, open for a round: {@link #slice} writes the next events, on the calling thread (raw) or
     * through the journal's producer path (journal). Both sides write one event when opened, before any slice is timed:
     * the queue's file is created and the appender made outside the clock on both sides.
     */
    private interface Side extends AutoCloseable {
        /** Writes sample events {@code from, from + count)}, timing one call in 16 into {@code h}; returns when written. */
        void slice(int from, int count, Histogram h);

        /** CPU time so far of the threads that write the file (see {@link Result#writerCpu}). */
        long writerCpuNanos();

        /** CPU time so far of the thread that makes the events when it is not the writer, or -1. */
        long producerCpuNanos();

        /** Batches the appender took from its ring so far, or -1 (no ring). */
        long batches();

        /** How many of a round's {@code events} this side writes (fewer when it is offered a rate). */
        default int eventsPerRound(int events) {
            return events;
        }

        @Override
        void close();
    }

    /** A raw Chronicle appender on the calling thread, the bench's baseline. */
    private final class RawSide implements Side {
        private final Encoding encoding;
        private final Path dir;
        private final SingleChronicleQueue q;
        private final ExcerptAppender a;
        private final Bytes<?> scratch = Bytes.allocateElasticDirect(512);
        private final Bytes<?>[] direct;

        RawSide(Path dir, Encoding encoding) {
            this.dir = dir;
            this.encoding = encoding;
            direct = new Bytes<?>[encoding == Encoding.WRITE_BYTES ? DISTINCT_EVENTS : 0];
            for (int k = 0; k < direct.length; k++) {
                direct[k] = Bytes.allocateDirect(encoded[k]);
            }
            q = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
            a = q.createAppender();
            try (DocumentContext dc = a.writingDocument()) {
                dc.wire().bytes().write(encoded[DISTINCT_EVENTS - 1]);
            }
        }

        @Override
        public void slice(int from, int count, Histogram h) {
            for (int i = from; i < from + count; i++) {
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
                    case WRITE_BYTES -> a.writeBytes(direct[k]);
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
        }

        @Override
        public long writerCpuNanos() {
            return cpuNanos(Thread.currentThread().getId());
        }

        @Override
        public long producerCpuNanos() {
            return -1;
        }

        @Override
        public long batches() {
            return -1;
        }

        @Override
        public void close() {
            a.close();
            q.close();
            scratch.releaseLast();
            for (Bytes<?> d : direct) {
                d.releaseLast();
            }
            delete(dir);
        }
    }

    /**
     * The journal's whole path: the calling thread appends, the clock stops when {@link JournalWriter#flush} returns.
     * With {@code offeredRate} 0 it appends as fast as it can; otherwise it offers that rate, in batches every 100 us,
     * and the rate achieved is what the journal kept up with.
     */
    private final class JournalSide implements Side {
        private final Path dir;
        private final long offeredRate;
        /** How often a batch of the offered rate is appended. */
        private final long intervalNanos;
        /** Whether the producer parks between batches (a trickle) or spins (paced: for publish latency). */
        private final boolean parks;
        private final JournalWriter w;
        private final Thread appender;

        JournalSide(Path dir, long offeredRate) {
            this(dir, offeredRate, 100_000, false, JournalWriter.DEFAULT_RING_SIZE);
        }

        JournalSide(Path dir, long offeredRate, long intervalNanos, boolean parks, int ringSize) {
            this.dir = dir;
            this.offeredRate = offeredRate;
            this.intervalNanos = intervalNanos;
            this.parks = parks;
            w = JournalWriter.open(dir, ringSize, JournalWriter.DEFAULT_PUBLISH_TIMEOUT);
            appender = appenderThread();
            w.append(sample[DISTINCT_EVENTS - 1]);
            w.flush();
        }

        @Override
        public int eventsPerRound(int events) {
            // Offered a rate: half a second of it at most (its figures are latency and CPU per event, not the rate).
            return offeredRate <= 0 ? events : (int) Math.min(events, offeredRate / 2);
        }

        @Override
        public void slice(int from, int count, Histogram h) {
            int perBatch = offeredRate <= 0 ? count : (int) Math.max(1, offeredRate * intervalNanos / 1_000_000_000L);
            long next = System.nanoTime();
            int i = from;
            while (i < from + count) {
                for (int b = 0; b < perBatch && i < from + count; b++, i++) {
                    JournalEvent e = sample[i & (DISTINCT_EVENTS - 1)];
                    // One call in 16 timed, as in the raw loop: the producer's CPU stays comparable to the raw thread's.
                    boolean timed = (i & 15) == 0;
                    long t0 = timed ? System.nanoTime() : 0;
                    w.append(e);
                    if (timed) {
                        h.recordValue(System.nanoTime() - t0);
                    }
                }
                next += intervalNanos;
                for (long now = System.nanoTime(); offeredRate > 0 && now < next; now = System.nanoTime()) {
                    if (parks) {
                        LockSupport.parkNanos(next - now);
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }
            w.flush();
        }

        /**
         * The appender's, and its pages thread's: the pages the appender writes into are zeroed by the kernel for
         * whoever asks first, the raw appender's own thread or the journal's pages thread (PagesAhead). Its CPU is the
         * writer's, or the comparison is not like for like.
         */
        @Override
        public long writerCpuNanos() {
            return cpuNanos(appender.getId()) + pagesThreadCpu(appender);
        }

        @Override
        public long producerCpuNanos() {
            return cpuNanos(Thread.currentThread().getId());
        }

        @Override
        public long batches() {
            return w.appenderBatches();
        }

        @Override
        public void close() {
            w.close();
            delete(dir);
        }
    }

    /** What one side has spent so far in a round, summed over its slices. */
    private static final class Tally {
        final Histogram latency = histogram();
        long events;
        long nanos;
        long writerCpu;
        long producerCpu;
        long processCpu;
        long batches;

        Result result() {
            return new Result(events * 1e9 / nanos, latency, writerCpu / (double) events,
                    producerCpu < 0 ? -1 : producerCpu / (double) events, processCpu / (double) events,
                    batches < 0 ? -1 : events / (double) Math.max(1, batches));
        }
    }

    /** Times one slice of {@code side} into {@code t}. */
    private static void timeSlice(Side side, int from, int count, Tally t) {
        long process0 = processCpuNanos();
        long writer0 = side.writerCpuNanos();
        long producer0 = side.producerCpuNanos();
        long batches0 = side.batches();
        long start = System.nanoTime();
        side.slice(from, count, t.latency);
        long end = System.nanoTime();
        t.writerCpu += side.writerCpuNanos() - writer0;
        t.producerCpu = producer0 < 0 ? -1 : t.producerCpu + side.producerCpuNanos() - producer0;
        t.batches = batches0 < 0 ? -1 : t.batches + side.batches() - batches0;
        t.processCpu += processCpuNanos() - process0;
        t.nanos += end - start;
        t.events += count;
    }

    private void report(String variant, String round, Result r) {
        Histogram h = r.latency();
        out.printf(Locale.ROOT, "%-15s %-5s  %,12.0f  %6d  %6d  %6d  %8d  %6d  %16.0f  %18s  %17.0f  %12s%n", variant, round,
                r.eventsPerSecond(), h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), TimeUnit.NANOSECONDS.toMicros(h.getMaxValue()), r.writerCpu(),
                r.producerCpu() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", r.producerCpu()), r.processCpu(),
                r.eventsPerBatch() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", r.eventsPerBatch()));
    }

    private static Histogram histogram() {
        return new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    }

    private static void delete(Path p) {
        dev.vigil.journal.TestFiles.deleteTree(p);
        LockSupport.parkNanos(1);
    }
}
