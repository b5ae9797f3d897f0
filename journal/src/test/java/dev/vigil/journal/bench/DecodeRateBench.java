package dev.vigil.journal.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import dev.vigil.journal.JournalReader;

import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The read path in one warm JVM (a benchmark, asserts nothing): per round, the same journal read by a
 * raw Chronicle tailer (each excerpt's bytes summed: the floor of reading through Chronicle), by
 * {@link JournalReader} with every event skipped by its header (envelope and CRC32C checked, nothing decoded),
 * and by {@link JournalReader} decoding every event. Reported: CPU ns per event of the reading thread,
 * median over the rounds, and the ratio to the raw tailer.
 *
 * <pre>java @journal/target/jvm.options -cp ... dev.vigil.journal.bench.DecodeRateBench DIR [rounds=5]</pre>
 */
public final class DecodeRateBench {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    /** -Dvigil.decode.only=N runs variant N alone (0 raw, 1 header only, 2 decoded): for a profiler. */
    private static final int ONLY = Integer.getInteger("vigil.decode.only", -1);

    private DecodeRateBench() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        for (String line : measure(dir, rounds)) {
            System.out.println(line);
        }
    }

    /** The three variants, {@code rounds} times each, interleaved; one line per variant (and a heading). */
    public static List<String> measure(Path dir, int rounds) {
        String[] names = {"raw Chronicle tailer (bytes summed)", "JournalReader, header only (CRC checked)",
            "JournalReader, every event decoded"};
        long[][] nanos = new long[3][rounds];
        long[][] allocated = new long[3][rounds];
        com.sun.management.ThreadMXBean memory = (com.sun.management.ThreadMXBean) THREADS;
        long self = Thread.currentThread().getId();
        long events = 0;
        for (int r = 0; r < rounds; r++) {
            for (int v = 0; v < 3; v++) {
                if (ONLY >= 0 && v != ONLY) {
                    continue;
                }
                long cpu = THREADS.getCurrentThreadCpuTime();
                long bytes = memory.getThreadAllocatedBytes(self);
                long n = v == 0 ? raw(dir) : reader(dir, v == 2);
                nanos[v][r] = THREADS.getCurrentThreadCpuTime() - cpu;
                allocated[v][r] = memory.getThreadAllocatedBytes(self) - bytes;
                events = n;
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "in-process, warm: %,d events, median of %d rounds, CPU of the reading thread",
                events, rounds));
        double raw = median(nanos[0]) / (double) events;
        for (int v = 0; v < 3; v++) {
            double perEvent = median(nanos[v]) / (double) events;
            lines.add(String.format(Locale.ROOT, "%-44s %7.1f ns/event  %6.1f M events/s  %5.2fx raw  %6.1f bytes allocated/event",
                    names[v], perEvent, 1e3 / perEvent, perEvent / raw, median(allocated[v]) / (double) events));
        }
        return lines;
    }

    /** Reads every excerpt of the journal through a bare Chronicle tailer; returns how many data excerpts. */
    public static long raw(Path dir) {
        long n = 0;
        long sum = 0;
        try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir.toFile()).readOnly(true).build();
                ExcerptTailer t = q.createTailer()) {
            while (true) {
                try (DocumentContext dc = t.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    if (dc.isMetaData()) {
                        continue;
                    }
                    var b = dc.wire().bytes();
                    sum += b.readLong(b.readPosition()) + b.readRemaining();
                    n++;
                }
            }
        }
        if (sum == 42) {
            System.out.println();
        }
        return n;
    }

    static long reader(Path dir, boolean decode) {
        long[] n = {0};
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().read(type -> {
                n[0]++;
                return decode;
            }, (i, e) -> true);
        }
        return n[0];
    }

    private static long median(long[] values) {
        long[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
