package dev.vigil.pool;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * CloseBenchmark's look inside each close: a JFR recording of the engine's {@code vigil.ClosePhase} and the caller's
 * {@code vigil.CloseReturned} events (one each per close, joined by close id), with the JVM's GC pauses and safepoint
 * VM operations, so a slow close says which phase its time went to and whether the JVM stopped meanwhile.
 */
final class ClosePhases {
    /** One segment of a close: its label and its length from the two events. */
    private record Segment(String label, ToLongFunction<Close> nanos) {
    }

    /** One close: its two events (the caller's may be missing for a close nobody waited on). */
    private record Close(RecordedEvent engine, RecordedEvent caller) {
        long at(String field) {
            return engine.getDuration(field).toNanos();
        }

        long caller(String field) {
            return caller == null ? at("completed") : caller.getDuration(field).toNanos();
        }

        long tail() {
            return caller("flushed") - at("lastReap");
        }
    }

    private static final List<Segment> SEGMENTS = List.of(
            new Segment("caller -> engine thread (ring)", c -> c.at("engineStart")),
            new Segment("fence, take the children, tell each (CAS, doorbell)", c -> c.at("told") - c.at("engineStart")),
            new Segment("journal the shutdowns, hook the exits", c -> c.at("published") - c.at("told")),
            new Segment("children exit (to the last reap)", c -> c.at("lastReap") - c.at("published")),
            new Segment("last reap -> its exit handled (engine's own epoll; reaper -> ring)", c -> c.at("lastExit") - c.at("lastReap")),
            new Segment("stray sweep (cgroup.procs)", c -> c.at("swept") - c.at("lastExit")),
            new Segment("settle, drain and release what is left", c -> c.at("settled") - c.at("swept")),
            new Segment("report, CloseCompleted", c -> c.at("reported") - c.at("settled")),
            new Segment("pool forgets its children, container removed", c -> c.at("finished") - c.at("reported")),
            new Segment("future completed", c -> c.at("completed") - c.at("finished")),
            new Segment("engine -> caller (wake-up)", c -> c.caller("woke") - c.at("completed")),
            new Segment("caller's journal flush", c -> c.caller("flushed") - c.caller("woke")),
            new Segment("= close minus slowest reap", Close::tail));

    private final Path file;
    private final Recording recording = new Recording();

    ClosePhases(Path file) {
        this.file = file;
        recording.enable("vigil.ClosePhase").withThreshold(Duration.ZERO);
        recording.enable("vigil.CloseReturned").withThreshold(Duration.ZERO);
        recording.enable("jdk.GCPhasePause").withThreshold(Duration.ZERO);
        recording.enable("jdk.ExecuteVMOperation").withThreshold(Duration.ZERO);
        recording.start();
    }

    void stop() throws IOException {
        recording.stop();
        recording.dump(file);
        recording.close();
    }

    /**
     * Prints, for the closes of each {@code label} (close ids), the median length of each segment (max in
     * brackets), and every close of {@code outliers} whose close minus slowest reap exceeded {@code slowNanos}; for each
     * label in {@code referenceNanos} (the reference's median close), the room the target leaves (0.25x of it) against
     * what the close spends outside its children's exits: the two thread hand-offs between the caller and the engine
     * (a close on an engine thread fed through a ring cannot do without them), and all it does after the last exit.
     */
    void print(PrintStream out, Map<String, List<Long>> byLabel, List<Long> outliers, long slowNanos,
            Map<String, Long> referenceNanos) throws IOException {
        Map<Long, RecordedEvent> engine = new HashMap<>();
        Map<Long, RecordedEvent> caller = new HashMap<>();
        List<RecordedEvent> pauses = new ArrayList<>();
        List<RecordedEvent> vmOps = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            switch (e.getEventType().getName()) {
                case "vigil.ClosePhase" -> engine.put(e.getLong("closeId"), e);
                case "vigil.CloseReturned" -> caller.put(e.getLong("closeId"), e);
                case "jdk.GCPhasePause" -> pauses.add(e);
                case "jdk.ExecuteVMOperation" -> {
                    if (e.getBoolean("safepoint")) {
                        vmOps.add(e);
                    }
                }
                default -> { }
            }
        }
        Files.delete(file);
        out.printf(Locale.ROOT, "%nWhere the time of a close goes (JFR events vigil.ClosePhase and vigil.CloseReturned,"
                + " one per close), idle pools: median ms per segment [max]; the mailboxes released at their own reap"
                + " (before the last exit) are counted apart.%n%n");
        StringBuilder head = new StringBuilder("| segment |");
        StringBuilder rule = new StringBuilder("|---|");
        Map<String, List<Close>> closes = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, List<Long>> l : byLabel.entrySet()) {
            List<Close> list = new ArrayList<>();
            for (long id : l.getValue()) {
                if (engine.containsKey(id)) {
                    list.add(new Close(engine.get(id), caller.get(id)));
                }
            }
            closes.put(l.getKey(), list);
            head.append(' ').append(l.getKey()).append(" |");
            rule.append("---|");
        }
        out.println(head);
        out.println(rule);
        for (Segment s : SEGMENTS) {
            StringBuilder row = new StringBuilder("| " + s.label() + " |");
            for (List<Close> list : closes.values()) {
                List<Long> v = new ArrayList<>();
                list.forEach(c -> v.add(s.nanos().applyAsLong(c)));
                row.append(list.isEmpty() ? " - |" : String.format(Locale.ROOT, " %.2f [%.2f] |", median(v) / 1e6,
                        Collections.max(v) / 1e6));
            }
            out.println(row);
        }
        StringBuilder released = new StringBuilder("| mailboxes released at their reap / children |");
        for (List<Close> list : closes.values()) {
            List<Long> v = new ArrayList<>();
            list.forEach(c -> v.add((long) c.engine().getInt("releasedAtReap")));
            released.append(list.isEmpty() ? " - |" : " " + median(v) + " / " + list.get(0).engine().getInt("children") + " |");
        }
        out.println(released);
        printRoom(out, closes, referenceNanos);
        int slow = 0;
        StringBuilder lines = new StringBuilder();
        for (long id : outliers) {
            RecordedEvent e = engine.get(id);
            if (e == null) {
                continue;
            }
            Close c = new Close(e, caller.get(id));
            if (c.tail() <= slowNanos) {
                continue;
            }
            slow++;
            List<Segment> top = new ArrayList<>(SEGMENTS.subList(4, SEGMENTS.size() - 1));
            top.sort((a, b) -> Long.compare(b.nanos().applyAsLong(c), a.nanos().applyAsLong(c)));
            Instant from = c.caller() != null ? c.caller().getStartTime() : e.getStartTime();
            Instant to = c.caller() != null ? c.caller().getEndTime() : e.getEndTime();
            lines.append(String.format(Locale.ROOT, "- %s (%d children): %.2f ms; %s %.2f, %s %.2f; GC pauses within"
                    + " the close %.2f ms, safepoint VM operations %.2f ms%n", e.getString("pool"), e.getInt("children"),
                    c.tail() / 1e6, top.get(0).label(), top.get(0).nanos().applyAsLong(c) / 1e6, top.get(1).label(),
                    top.get(1).nanos().applyAsLong(c) / 1e6, overlap(pauses, from, to) / 1e6, overlap(vmOps, from, to) / 1e6));
        }
        out.printf(Locale.ROOT, "%nCloses (idle pools) whose close minus slowest reap exceeded %.0f ms: %d of %d%s%n",
                slowNanos / 1e6, slow, outliers.size(), slow == 0 ? "." : ", each with its two longest segments:");
        out.print(lines);
    }

    /** The room the 1.25x target leaves beside what a close spends outside its children's exits (see {@link #print}). */
    private static void printRoom(PrintStream out, Map<String, List<Close>> closes, Map<String, Long> referenceNanos) {
        out.printf(Locale.ROOT, "%nThe room the target leaves (whole close <= 1.25x the protocol reference: 0.25x of the"
                + " reference's median close) against what a Vigil close spends besides telling its children and their"
                + " exits, medians ms:%n%n| pool | reference close | room (0.25x) | hand-offs caller -> engine + engine ->"
                + " caller | engine after the last reap (exit handled .. future completed) | caller's journal flush"
                + " | these three | within the room |%n|---|---|---|---|---|---|---|---|%n");
        Segment in = SEGMENTS.get(0);
        Segment back = SEGMENTS.get(SEGMENTS.size() - 3);
        Segment flush = SEGMENTS.get(SEGMENTS.size() - 2);
        for (Map.Entry<String, Long> r : referenceNanos.entrySet()) {
            List<Close> list = closes.get(r.getKey());
            if (list == null || list.isEmpty()) {
                continue;
            }
            List<Long> hops = new ArrayList<>();
            List<Long> engine = new ArrayList<>();
            List<Long> flushes = new ArrayList<>();
            List<Long> sum = new ArrayList<>();
            for (Close c : list) {
                long h = in.nanos().applyAsLong(c) + back.nanos().applyAsLong(c);
                long e = c.at("completed") - c.at("lastReap");
                long f = flush.nanos().applyAsLong(c);
                hops.add(h);
                engine.add(e);
                flushes.add(f);
                sum.add(h + e + f);
            }
            long room = r.getValue() / 4;
            out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s |%n", r.getKey(),
                    r.getValue() / 1e6, room / 1e6, median(hops) / 1e6, median(engine) / 1e6, median(flushes) / 1e6,
                    median(sum) / 1e6, median(sum) <= room ? "yes" : "no (" + String.format(Locale.ROOT, "%.1fx",
                            median(sum) / (double) room) + " the room)");
        }
    }

    /** Nanoseconds of {@code events} inside [from, to]. */
    private static long overlap(List<RecordedEvent> events, Instant from, Instant to) {
        long sum = 0;
        for (RecordedEvent e : events) {
            Instant a = e.getStartTime().isAfter(from) ? e.getStartTime() : from;
            Instant b = e.getEndTime().isBefore(to) ? e.getEndTime() : to;
            if (b.isAfter(a)) {
                sum += Duration.between(a, b).toNanos();
            }
        }
        return sum;
    }

    private static long median(List<Long> v) {
        List<Long> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.get(s.size() / 2);
    }
}
