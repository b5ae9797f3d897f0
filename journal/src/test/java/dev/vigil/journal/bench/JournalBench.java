package dev.vigil.journal.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
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
 *   <li>{@code raw-writebytes} (only when named): the same bytes through {@code ExcerptAppender.writeBytes} from
 *       off-heap copies, the way the journal's appender writes an excerpt whose pages are reserved.</li>
 *   <li>{@code journal-writing-document}, {@code journal-no-pages-thread} (only when named): the journal with every
 *       excerpt through writingDocument, or without its pages thread, for comparison in the same JVM.</li>
 * </ul>
 * Before the rounds it checks the method: both sides write the same documents, byte for byte, into queues alike
 * ({@link #sameDocuments}). Every other round runs the variants in reverse order.
 * Latency is of the call ({@code append}, or a whole raw excerpt write: one in 16 each, so
 * that timing does not slow the measured threads), read with System.nanoTime around it (so it
 * includes ~20 ns of clock reads), into an HdrHistogram.
 *
 * <pre>java @journal/target/jvm.options -cp "$(cat journal/target/test-classpath.txt):journal/target/classes:journal/target/test-classes" \
 *     dev.vigil.journal.bench.JournalBench [events=3000000] [rounds=5] [pacedRate=1000000] [variants=raw-bytes,raw-scratch,journal,journal-paced]</pre>
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
        // Five measured rounds, not three: rounds swing up to 2x on this VM either way, and with three one of them
        // decided the median ratio (raw/journal per round 1.53 1.79 1.34 in one run, 0.58 1.07 0.57 in another).
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
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
        sameDocuments(work.resolve("same-documents"));
        out.println("variant         round  events/s      p50 ns  p90 ns  p99 ns  p99.9 ns  max us  writer-cpu ns/ev  producer-cpu ns/ev  events/batch");
        java.util.Map<String, java.util.List<Result>> all = new java.util.TreeMap<>();
        for (int round = 0; round <= rounds; round++) {
            String r = round == 0 ? "warm" : Integer.toString(round);
            int at = round;
            // Every other round in the opposite order, so that no variant always runs first after the previous round's
            // files were deleted, or always right after the same other one.
            java.util.List<String> order = new java.util.ArrayList<>(ORDER);
            if (round % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (String variant : order) {
                if (variants.contains(variant)) {
                    report(variant, r, runVariant(variant, work.resolve(variant + "-" + at)));
                }
            }
            if (round > 0) {
                results.forEach((variant, result) -> all.computeIfAbsent(variant, v -> new java.util.ArrayList<>()).add(result));
            }
            results.clear();
        }
        out.println("load average at end: " + loadAverage());
        out.println("median over measured rounds:");
        all.forEach((variant, list) -> {
            double[] rates = list.stream().mapToDouble(Result::eventsPerSecond).sorted().toArray();
            long[] p50 = list.stream().mapToLong(x -> x.latency().getValueAtPercentile(50)).sorted().toArray();
            long[] p99 = list.stream().mapToLong(x -> x.latency().getValueAtPercentile(99)).sorted().toArray();
            double median = rates[rates.length / 2];
            double[] cpu = list.stream().mapToDouble(Result::writerCpu).sorted().toArray();
            out.printf(Locale.ROOT, "  %-15s %,12.0f events/s  p50 %d ns  p99 %d ns  writer cpu %.0f ns/event (%,.0f events/s on a core of its own)%n",
                    variant, median, p50[p50.length / 2], p99[p99.length / 2], cpu[cpu.length / 2], 1e9 / cpu[cpu.length / 2]);
        });
        double rate = printRatio(all, "raw-bytes", "journal", Result::eventsPerSecond, "events/s", " (target <= 1.25)");
        printRatio(all, "raw-scratch", "journal", Result::eventsPerSecond, "events/s", "");
        printRatio(all, "raw-bytes", "raw-scratch", Result::eventsPerSecond, "events/s", "");
        double cpu = printRatio(all, "journal", "raw-bytes", Result::writerCpu, "writer cpu/event", " (target <= 1.5)");
        printRatio(all, "journal", "raw-scratch", Result::writerCpu, "writer cpu/event", "");
        printRatio(all, "raw-writebytes", "raw-bytes", Result::writerCpu, "writer cpu/event", "");
        printRatio(all, "journal-no-pages-thread", "journal", Result::eventsPerSecond, "events/s", "");
        printRatio(all, "journal-writing-document", "journal", Result::eventsPerSecond, "events/s", "");
        printRatio(all, "journal", "journal-writing-document", Result::writerCpu, "writer cpu/event", "");
        printRatio(all, "journal", "journal-writing-document", JournalBench::bothThreadsCpu, "cpu/event of both threads", "");
        printRatio(all, "journal", "journal-no-pages-thread", Result::writerCpu, "writer cpu/event", "");
        printRatio(all, "journal", "journal-no-pages-thread", JournalBench::bothThreadsCpu, "cpu/event of both threads", "");
        // append encodes on the producer's thread: the whole path's CPU is both threads', against the raw loop's one.
        double both = printRatio(all, "journal", "raw-bytes", JournalBench::bothThreadsCpu, "cpu/event of both threads",
                " (journal: producer + appender; raw: its one thread)");
        if (variants.contains("journal")) {
            idleAppender(work.resolve("journal-idle"));
        }
        if (!Double.isNaN(rate)) {
            new BenchSummary("journal write path: events/s (" + String.format(Locale.ROOT, "%,d", events) + " events, median of "
                    + rounds + " rounds)", millions(median(all, "journal", Result::eventsPerSecond)) + " M/s",
                    "raw Chronicle appender writing the same bytes " + millions(median(all, "raw-bytes", Result::eventsPerSecond))
                    + " M/s", BenchSummary.ratio(rate) + " raw/journal", "<= 1.25x", rate <= 1.25).print(out);
            new BenchSummary("journal writer CPU per event", Math.round(median(all, "journal", Result::writerCpu)) + " ns",
                    "raw appender thread " + Math.round(median(all, "raw-bytes", Result::writerCpu)) + " ns",
                    BenchSummary.ratio(cpu), "<= 1.5x", cpu <= 1.5).print(out);
            BenchSummary.reported("journal CPU per event, both threads (append's caller, which encodes, + appender)",
                    Math.round(median(all, "journal", JournalBench::bothThreadsCpu)) + " ns",
                    "raw appender thread (encoded before the run) " + Math.round(median(all, "raw-bytes", Result::writerCpu))
                    + " ns", BenchSummary.ratio(both)).print(out);
        }
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

    /** The variants in the order a round runs them (every other round reversed). */
    private static final java.util.List<String> ORDER = java.util.List.of("raw-bytes", "raw-writebytes", "raw-codec", "raw-scratch",
            "journal", "journal-no-pages-thread", "journal-writing-document", "journal-paced");

    private Result runVariant(String variant, Path dir) {
        return switch (variant) {
            case "raw-bytes" -> raw(dir, Encoding.PRE_ENCODED);
            case "raw-codec" -> raw(dir, Encoding.INTO_EXCERPT);
            case "raw-writebytes" -> raw(dir, Encoding.WRITE_BYTES);
            case "raw-scratch" -> raw(dir, Encoding.SCRATCH_THEN_COPY);
            case "journal" -> journal(dir, 0);
            case "journal-no-pages-thread" -> with("vigil.journal.pagesAhead", () -> journal(dir, 0));
            case "journal-writing-document" -> with("vigil.journal.writeBytes", () -> journal(dir, 0));
            case "journal-paced" -> journal(dir, pacedRate);
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
    }

    /**
     * The journal with one of its ways turned off for comparison: {@code vigil.journal.pagesAhead} (the appender reserves
     * every chunk of pages itself, no pages thread), {@code vigil.journal.writeBytes} (every excerpt through
     * writingDocument).
     */
    private static Result with(String offProperty, java.util.function.Supplier<Result> run) {
        System.setProperty(offProperty, "false");
        try {
            return run.get();
        } finally {
            System.clearProperty(offProperty);
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
            Thread appender = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().startsWith("vigil-journal-appender-") && t.isAlive())
                    .max(java.util.Comparator.comparingLong(Thread::getId)).orElseThrow();
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

    /**
     * {@code metric(a) / metric(b)} per round (the two ran back to back, so they shared the
     * machine's load of the moment), then the median.
     */
    private double printRatio(java.util.Map<String, java.util.List<Result>> all, String a, String b,
            java.util.function.ToDoubleFunction<Result> metric, String what, String note) {
        java.util.List<Result> as = all.get(a);
        java.util.List<Result> bs = all.get(b);
        if (as == null || bs == null) {
            return Double.NaN;
        }
        double[] ratios = new double[as.size()];
        StringBuilder rounds = new StringBuilder();
        for (int i = 0; i < ratios.length; i++) {
            ratios[i] = metric.applyAsDouble(as.get(i)) / metric.applyAsDouble(bs.get(i));
            rounds.append(String.format(Locale.ROOT, " %.2f", ratios[i]));
        }
        java.util.Arrays.sort(ratios);
        out.printf(Locale.ROOT, "%s %s / %s per round:%s; median %.2f%s%n", what, a, b, rounds,
                ratios[ratios.length / 2], note);
        return ratios[ratios.length / 2];
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
     * @param eventsPerBatch events the journal's appender took from its ring at a time, on average ({@link
     *     JournalWriter#appenderBatches}): a few when it ran right behind the producer, thousands when the ring was full;
     *     -1 for the raw variants
     */
    record Result(double eventsPerSecond, Histogram latency, double writerCpu, double producerCpu, double eventsPerBatch) {
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static long cpuNanos(long threadId) {
        return THREADS.getThreadCpuTime(threadId);
    }

    /** The newest journal appender thread: the one the writer just opened started. */
    /** CPU time so far of every live pages thread of a journal (vigil-journal-pages-N), by thread id. */
    private static java.util.Map<Long, Long> pagesThreadsCpu() {
        java.util.Map<Long, Long> cpu = new java.util.HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("vigil-journal-pages-") && t.isAlive()) {
                cpu.put(t.getId(), Math.max(0, cpuNanos(t.getId())));
            }
        }
        return cpu;
    }

    private static long appenderThreadId() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("vigil-journal-appender-") && t.isAlive())
                .mapToLong(Thread::getId).max()
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

    private Result raw(Path dir, Encoding encoding) {
        Histogram h = histogram();
        long start;
        long end;
        long cpu0;
        long cpu1;
        Bytes<?> scratch = Bytes.allocateElasticDirect(512);
        Bytes<?>[] direct = new Bytes<?>[encoding == Encoding.WRITE_BYTES ? DISTINCT_EVENTS : 0];
        for (int k = 0; k < direct.length; k++) {
            direct[k] = Bytes.allocateDirect(encoded[k]);
        }
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).build();
             ExcerptAppender a = q.createAppender()) {
            cpu0 = cpuNanos(Thread.currentThread().getId());
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
            end = System.nanoTime();
            cpu1 = cpuNanos(Thread.currentThread().getId());
        } finally {
            scratch.releaseLast();
            for (Bytes<?> d : direct) {
                d.releaseLast();
            }
        }
        delete(dir);
        return new Result(events * 1e9 / (end - start), h, (cpu1 - cpu0) / (double) events, -1, -1);
    }

    /**
     * The journal's whole path. With {@code offeredRate} 0 the producer appends as fast as it
     * can; otherwise it offers that rate, in batches every 100 us, and the rate achieved is what
     * the journal kept up with.
     */
    private Result journal(Path dir, long offeredRate) {
        Histogram h = histogram();
        long intervalNanos = 100_000;
        int perBatch = offeredRate <= 0 ? events : (int) Math.max(1, offeredRate * intervalNanos / 1_000_000_000L);
        long start;
        long end;
        long appender;
        long[] cpu = new long[4];
        long batches;
        try (JournalWriter w = JournalWriter.open(dir)) {
            appender = appenderThreadId();
            java.util.Map<Long, Long> pagesBefore = pagesThreadsCpu();
            cpu[0] = cpuNanos(appender) + pagesBefore.values().stream().mapToLong(Long::longValue).sum();
            cpu[1] = cpuNanos(Thread.currentThread().getId());
            long batches0 = w.appenderBatches();
            start = System.nanoTime();
            long next = start;
            int i = 0;
            while (i < events) {
                for (int b = 0; b < perBatch && i < events; b++, i++) {
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
                while (offeredRate > 0 && System.nanoTime() < next) {
                    Thread.onSpinWait();
                }
            }
            w.flush();
            end = System.nanoTime();
            // The pages the appender writes into are zeroed by the kernel for whoever asks first: the raw appender's own
            // thread, the journal's pages thread (PagesAhead). Its CPU is the writer's, or the comparison is not like for like.
            cpu[2] = cpuNanos(appender) + pagesThreadsCpu().values().stream().mapToLong(Long::longValue).sum();
            cpu[3] = cpuNanos(Thread.currentThread().getId());
            batches = w.appenderBatches() - batches0;
        }
        delete(dir);
        return new Result(events * 1e9 / (end - start), h, (cpu[2] - cpu[0]) / (double) events,
                (cpu[3] - cpu[1]) / (double) events, events / (double) Math.max(1, batches));
    }

    private final java.util.Map<String, Result> results = new java.util.LinkedHashMap<>();

    private void report(String variant, String round, Result r) {
        results.put(variant, r);
        Histogram h = r.latency();
        out.printf(Locale.ROOT, "%-15s %-5s  %,12.0f  %6d  %6d  %6d  %8d  %6d  %16.0f  %18s  %12s%n", variant, round,
                r.eventsPerSecond(), h.getValueAtPercentile(50), h.getValueAtPercentile(90), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), TimeUnit.NANOSECONDS.toMicros(h.getMaxValue()), r.writerCpu(),
                r.producerCpu() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", r.producerCpu()),
                r.eventsPerBatch() < 0 ? "-" : String.format(Locale.ROOT, "%.0f", r.eventsPerBatch()));
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
