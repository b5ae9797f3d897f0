package dev.vigil.replay;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;

import org.HdrHistogram.Histogram;

import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalCorruptException;
import dev.vigil.journal.JournalDirectory;
import dev.vigil.journal.JournalException;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JsonEvents;
import dev.vigil.journal.ShutdownPublished;
import dev.vigil.replay.internal.CloseSpans;
import dev.vigil.replay.internal.CycleFileCheck;
import dev.vigil.replay.internal.ScanProgress;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/** {@code stats DIR}: reap latency per close and overall, by group size and by overlapping closes. */
public final class StatsCommand implements Callable<Integer> {
    ReplayCli cli;
    Path dir;
    SourceOptions source;
    boolean json;
    boolean summary;

    /** The command line model of {@code stats}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        StatsCommand c = new StatsCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "stats", "Measure reap latency per close and over all closes.",
                "Reap latency (time from the shutdown broadcast to the reap) min / median / p90 / max / mean,",
                "per close and over all closes, split by group size (children of the reaped child's group in that",
                "close) and by how many other closes were running when the close started. HdrHistogram, 3",
                "significant digits. Decodes only close events, and through the journal's close index reads only",
                "the stretches that hold closes, so it is fast on long journals.");
        CommandModel.journalDir(spec, () -> c.dir, v -> c.dir = v);
        c.source = SourceOptions.addTo(spec);
        CommandModel.flag(spec, "--json", "JSON lines: one per close, then overall and each split", () -> c.json,
                v -> c.json = v);
        CommandModel.flag(spec, "--summary", "leave out the per-close lines", () -> c.summary, v -> c.summary = v);
        return spec;
    }

    @Override
    public Integer call() {
        return source.run(dir, json, cli.out, (s, out) -> run(s, json, summary, out));
    }

    /** The kinds stats decodes; all others are skipped by header. */
    static final EnumSet<EventType> KINDS = EnumSet.of(EventType.CLOSE_STARTED, EventType.SHUTDOWN_PUBLISHED,
            EventType.ESCALATION_SENT, EventType.CHILD_REAPED, EventType.CLOSE_COMPLETED);

    public static int run(Path dir, boolean json, boolean summary, PrintStream out) {
        return run(new JournalDirectorySource(dir), json, summary, out);
    }

    public static int run(EventSource source, boolean json, boolean summary, PrintStream out) {
        Path dir = source.journalDir();
        if (dir != null) {
            JournalDirectory.validate(dir); // before any output: a wrong DIR is one ERR line, not a header and then one
        }
        Aggregate agg = new Aggregate(json, summary, out);
        if (!json && !summary) {
            out.printf(ReplayText.NUMBERS, "reap latency per close (seconds; children killed by escalation, or gone before the close, are not in it)%n"
                    + "%15s  %-16s  %8s  %7s  %6s  %6s  %4s  %s%n", "close", "pool", "children", "overlap", "reaped",
                    "killed", "kept", LatencySummary.header());
        }
        List<long[]> ranges = dir == null ? null : CloseSpans.ranges(dir);
        if (ranges == null) {
            source.read(KINDS, sinkOf(agg));
        } else if (summary && ranges.size() > 1 && Runtime.getRuntime().availableProcessors() > 1) {
            readRangesInTwo(dir, ranges, agg);
            CycleFileCheck.requireNotTruncated(dir);
        } else {
            readRanges(dir, ranges, sinkOf(agg), true);
            CycleFileCheck.requireNotTruncated(dir);
        }
        agg.printTotals();
        return 0;
    }

    private static JournalReader.EventSink sinkOf(Aggregate agg) {
        return (i, e) -> {
            switch (e.type()) {
                case CLOSE_STARTED -> agg.started((CloseStarted) e);
                case SHUTDOWN_PUBLISHED -> agg.published((ShutdownPublished) e);
                case ESCALATION_SENT -> agg.escalated((EscalationSent) e);
                case CHILD_REAPED -> agg.reaped((ChildReaped) e);
                case CLOSE_COMPLETED -> agg.completed((CloseCompleted) e);
                default -> {
                }
            }
            return true;
        };
    }

    /**
     * {@code --summary} over many ranges: the second half of the ranges is read on a thread of its own, with a
     * reader and an aggregate of its own, added to the first half's at the end. The answer is a single pass's:
     * every close lies inside one range (CloseSpans merges overlapping spans), no line is printed before the
     * totals, and damage in the first half is thrown before damage in the second, as a single pass meets it.
     */
    private static void readRangesInTwo(Path dir, List<long[]> ranges, Aggregate agg) {
        int half = ranges.size() / 2;
        Aggregate second = new Aggregate(agg.json, true, agg.out);
        Throwable[] failed = new Throwable[1];
        Thread other = new Thread(() -> {
            try {
                readRanges(dir, ranges.subList(half, ranges.size()), sinkOf(second), false);
            } catch (RuntimeException | Error e) {
                failed[0] = e;
            }
        }, "stats-second-half");
        other.start();
        try {
            readRanges(dir, ranges.subList(0, half), sinkOf(agg), true);
        } finally {
            try {
                other.join(); // bounded: the thread reads to the end of the journal as it stands, never waits for data
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failed[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failed[0] instanceof Error e) {
            throw e;
        }
        agg.add(second);
    }

    /**
     * Reads only the stretches that hold closes (every event stats needs lies between a close's
     * start and its completion): on a long journal most events are pool work between closes.
     */
    private static void readRanges(Path dir, List<long[]> ranges, JournalReader.EventSink sink, boolean showProgress) {
        ScanProgress progress = showProgress ? ScanProgress.onTerminal() : ScanProgress.silent();
        try (JournalReader reader = JournalReader.open(dir)) {
            for (long[] range : ranges) {
                if (!reader.fromIndex(range[0])) {
                    throw new JournalException("journal dir=" + dir + " close-index names index=0x"
                            + Long.toHexString(range[0]) + " but the journal has no such excerpt");
                }
                long end = range[1];
                boolean[] started = {false};
                reader.read(type -> {
                    progress.tick();
                    return KINDS.contains(type);
                }, (i, e) -> {
                    if (!started[0]) {
                        started[0] = true;
                        requireCloseStartAt(dir, range[0], i, e);
                    }
                    return sink.accept(i, e) && i < end;
                });
                if (!started[0]) {
                    requireCloseStartAt(dir, range[0], -1, null);
                }
            }
        } finally {
            progress.done();
        }
    }

    /**
     * The close index names a CloseStarted at {@code expected}; reading from there must begin with it. Chronicle finds an
     * index by counting the excerpts before it, so an event earlier in the cycle whose header was damaged into a
     * metadata header is not counted and every index after it lands one event late: without this check the range's
     * first close would be skipped and stats would answer for fewer closes, exit 0.
     */
    private static void requireCloseStartAt(Path dir, long expected, long index, dev.vigil.journal.JournalEvent e) {
        if (index == expected && e instanceof CloseStarted) {
            return;
        }
        throw new JournalCorruptException("journal dir=" + dir + " close-index names a CloseStarted at index=0x"
                + Long.toHexString(expected) + " but reading from there gave " + (e == null ? "no event"
                : e.type().recordClass().getSimpleName() + " at index=0x" + Long.toHexString(index))
                + ": an excerpt before it is damaged (vigil-replay export names where)", expected, null);
    }

    /** Per close in progress: its reaps so far and how many children each group has in it. */
    private static final class OpenClose {
        final CloseStarted started;
        final Map<String, Integer> groupSizes = new HashMap<>();
        final List<ChildReaped> reaps = new ArrayList<>();
        /** Children sent an escalation signal; their reaps are kills, not reap latency. */
        final Set<String> escalated = new HashSet<>();
        final List<ChildReaped> kills = new ArrayList<>();

        OpenClose(CloseStarted started) {
            this.started = started;
        }
    }

    private static final class Aggregate {
        final boolean json;
        final boolean summary;
        final PrintStream out;
        final Map<Long, OpenClose> open = new HashMap<>();
        final Histogram perClose = LatencySummary.newHistogram();
        final Histogram overall = LatencySummary.newHistogram();
        final Histogram killed = LatencySummary.newHistogram();
        final Map<Integer, Histogram> byGroupSize = new TreeMap<>();
        final Map<Integer, Histogram> byOverlap = new TreeMap<>();
        final Map<Integer, Integer> closesByOverlap = new TreeMap<>();
        long closes;
        long survivors;

        Aggregate(boolean json, boolean summary, PrintStream out) {
            this.json = json;
            this.summary = summary;
            this.out = out;
        }

        void started(CloseStarted e) {
            open.put(e.closeId(), new OpenClose(e));
        }

        void published(ShutdownPublished e) {
            OpenClose c = open.get(e.closeId());
            if (c != null) {
                c.groupSizes.merge(e.group(), 1, Integer::sum);
            }
        }

        void escalated(EscalationSent e) {
            OpenClose c = open.get(e.closeId());
            if (c != null) {
                c.escalated.add(e.group() + "/" + e.index());
            }
        }

        void reaped(ChildReaped e) {
            OpenClose c = open.get(e.closeId());
            if (c != null && e.sinceBroadcastNanos() >= 0 && !e.goneBeforeClose()) { // no broadcast reached it: no latency
                boolean killed = !c.escalated.isEmpty() && c.escalated.contains(e.group() + "/" + e.index());
                (killed ? c.kills : c.reaps).add(e);
            }
        }

        void completed(CloseCompleted e) {
            OpenClose c = open.remove(e.closeId());
            if (c == null) {
                return;
            }
            closes++;
            survivors += e.survivors();
            for (ChildReaped k : c.kills) {
                killed.recordValue(k.sinceBroadcastNanos());
            }
            int overlap = c.started.otherClosesInFlight();
            closesByOverlap.merge(overlap, 1, Integer::sum);
            if (!summary) {
                perClose.reset(); // clears every count (thousands): only when the per-close line is printed
            }
            Histogram overlapHist = byOverlap.computeIfAbsent(overlap, k -> LatencySummary.newHistogram());
            for (ChildReaped r : c.reaps) {
                long v = r.sinceBroadcastNanos();
                if (!summary) {
                    perClose.recordValue(v);
                }
                overall.recordValue(v);
                overlapHist.recordValue(v);
                int size = c.groupSizes.getOrDefault(r.group(), 0);
                byGroupSize.computeIfAbsent(size, k -> LatencySummary.newHistogram()).recordValue(v);
            }
            if (summary) {
                return;
            }
            LatencySummary s = LatencySummary.of(perClose);
            if (json) {
                ObjectNode n = JsonEvents.mapper().createObjectNode();
                n.put("type", "close").put("closeId", e.closeId()).put("poolId", e.poolId())
                        .put("children", c.started.children()).put("otherClosesInFlight", overlap)
                        .put("killed", c.kills.size()).put("kept", e.survivors()).put("survivors", e.survivors());
                s.putInto(n);
                out.println(n);
            } else {
                out.printf(ReplayText.NUMBERS, "%15d  %-16s  %8d  %7d  %6d  %6d  %4d  %s%n", e.closeId(), e.poolId(),
                        c.started.children(), overlap, s.count(), c.kills.size(), e.survivors(), s.columns());
            }
        }

        /** Adds the closes {@code other} read (in other ranges of the same journal, with --summary). */
        void add(Aggregate other) {
            open.putAll(other.open);
            overall.add(other.overall);
            killed.add(other.killed);
            other.byGroupSize.forEach((size, h) -> byGroupSize.computeIfAbsent(size, k -> LatencySummary.newHistogram()).add(h));
            other.byOverlap.forEach((overlap, h) -> byOverlap.computeIfAbsent(overlap, k -> LatencySummary.newHistogram()).add(h));
            other.closesByOverlap.forEach((overlap, n) -> closesByOverlap.merge(overlap, n, Integer::sum));
            closes += other.closes;
            survivors += other.survivors;
        }

        void printTotals() {
            LatencySummary all = LatencySummary.of(overall);
            if (json) {
                ObjectNode n = JsonEvents.mapper().createObjectNode();
                n.put("type", "overall").put("closes", closes).put("survivors", survivors)
                        .put("killed", killed.getTotalCount()).put("closesInProgress", open.size());
                all.putInto(n);
                out.println(n);
                ObjectNode k = JsonEvents.mapper().createObjectNode();
                k.put("type", "killed");
                LatencySummary.of(killed).putInto(k, "kills"); // broadcast-to-kill times, not reaps: as the text's "kills" column
                out.println(k);
                byGroupSize.forEach((size, h) -> {
                    ObjectNode g = JsonEvents.mapper().createObjectNode();
                    g.put("type", "groupSize").put("groupSize", size);
                    LatencySummary.of(h).putInto(g);
                    out.println(g);
                });
                byOverlap.forEach((overlap, h) -> {
                    ObjectNode g = JsonEvents.mapper().createObjectNode();
                    g.put("type", "overlap").put("otherClosesInFlight", overlap).put("closes", closesByOverlap.get(overlap));
                    LatencySummary.of(h).putInto(g);
                    out.println(g);
                });
                return;
            }
            if (!summary) {
                out.println();
            }
            out.printf(ReplayText.NUMBERS, "over all closes: %d closes, %d reaped, %d killed by escalation, %d kept (survivors),"
                    + " %d closes not completed%n", closes, all.count(), killed.getTotalCount(), survivors, open.size());
            out.printf(ReplayText.NUMBERS, "%-24s  %8s  %s%n", "reap latency (seconds)", "reaps", LatencySummary.header());
            out.printf(ReplayText.NUMBERS, "%-24s  %8d  %s%n", "all", all.count(), all.columns());
            byGroupSize.forEach((size, h) -> {
                LatencySummary s = LatencySummary.of(h);
                out.printf(ReplayText.NUMBERS, "%-24s  %8d  %s%n", "group size " + size, s.count(), s.columns());
            });
            byOverlap.forEach((overlap, h) -> {
                LatencySummary s = LatencySummary.of(h);
                out.printf(ReplayText.NUMBERS, "%-24s  %8d  %s%n", "overlapping closes " + overlap, s.count(), s.columns());
            });
            if (killed.getTotalCount() > 0) {
                LatencySummary k = LatencySummary.of(killed);
                out.printf(ReplayText.NUMBERS, "%-24s  %8s  %s%n", "broadcast -> killed", "kills", LatencySummary.header());
                out.printf(ReplayText.NUMBERS, "%-24s  %8d  %s%n", "killed by escalation", k.count(), k.columns());
            }
        }
    }
}
