package dev.vigil.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A close report in the shape of the live CloseReport JSON: the outcome the orchestrator reported
 * (parsed from {@link dev.vigil.journal.CloseCompleted#reportJson()}) or the one the replay rebuilt.
 * outcome is CLEAN or FAILED (FAILED iff any child is a survivor or was killed by escalation).
 */
public record CloseOutcome(String poolId, long closeId, String outcome, long durationNanos, List<ChildOutcome> children) {
    public static final String CLEAN = "CLEAN";
    public static final String FAILED = "FAILED";

    public CloseOutcome {
        children = List.copyOf(children);
    }

    /**
     * Parses a live report; throws {@link ReplayInputException} naming the close when it is not one.
     * Read with Jackson's streaming parser, not an ObjectMapper: {@code show} reads one report, and an
     * ObjectMapper's set-up (its date format's calendar, the record's deserializer found by
     * reflection) was a sixth of that command's run (bin/vigil-bench replay). Fields it does not know
     * (the report's strays, kills, a child's stacks) are skipped; a missing one is null, or 0 for a number.
     */
    public static CloseOutcome fromJson(String json, long closeId) {
        try (JsonParser p = JSON.createParser(json)) {
            JsonToken first = p.nextToken();
            CloseOutcome parsed = first == JsonToken.VALUE_NULL ? null : readReport(p);
            if (parsed == null || parsed.children == null) {
                throw new ReplayInputException("closeId=" + closeId + " report JSON has no children: " + json);
            }
            return parsed;
        } catch (JsonProcessingException e) {
            throw new ReplayInputException("closeId=" + closeId + " report JSON is unreadable: "
                    + e.getOriginalMessage());
        } catch (java.io.IOException impossible) { // a String source has no I/O
            throw new java.io.UncheckedIOException(impossible);
        }
    }

    /** The report object the parser stands at the start of; null for a report without a children array. */
    private static CloseOutcome readReport(JsonParser p) throws java.io.IOException {
        expect(p, JsonToken.START_OBJECT, "a report object");
        String poolId = null;
        long closeId = 0;
        String outcome = null;
        long durationNanos = 0;
        List<ChildOutcome> children = null;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "poolId" -> poolId = p.getValueAsString();
                case "closeId" -> closeId = p.getValueAsLong();
                case "outcome" -> outcome = p.getValueAsString();
                case "durationNanos" -> durationNanos = p.getValueAsLong();
                case "children" -> children = readChildren(p);
                default -> p.skipChildren();
            }
        }
        return children == null ? null : new CloseOutcome(poolId, closeId, outcome, durationNanos, children);
    }

    private static List<ChildOutcome> readChildren(JsonParser p) throws java.io.IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(p, JsonToken.START_ARRAY, "children as an array");
        List<ChildOutcome> children = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            expect(p, JsonToken.START_OBJECT, "a child object");
            String group = null;
            String kind = null;
            String outcome = null;
            String diagnosis = null;
            String evidence = null;
            int index = 0;
            int pid = 0;
            int exitCode = 0;
            int signal = 0;
            long sinceBroadcastNanos = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "group" -> group = p.getValueAsString();
                    case "index" -> index = p.getValueAsInt();
                    case "pid" -> pid = p.getValueAsInt();
                    case "kind" -> kind = p.getValueAsString();
                    case "outcome" -> outcome = p.getValueAsString();
                    case "exitCode" -> exitCode = p.getValueAsInt();
                    case "signal" -> signal = p.getValueAsInt();
                    case "sinceBroadcastNanos" -> sinceBroadcastNanos = p.getValueAsLong();
                    case "diagnosis" -> diagnosis = p.getValueAsString();
                    case "evidence" -> evidence = p.getValueAsString();
                    default -> p.skipChildren();
                }
            }
            children.add(new ChildOutcome(group, index, pid, kind, outcome, exitCode, signal, sinceBroadcastNanos,
                    diagnosis, evidence));
        }
        return children;
    }

    private static void expect(JsonParser p, JsonToken token, String what) throws JsonProcessingException {
        if (p.currentToken() != token) {
            throw new com.fasterxml.jackson.core.JsonParseException(p, "expected " + what + ", found "
                    + p.currentToken());
        }
    }

    /** Writes the report as the live CloseReport JSON holds it (field order as declared). */
    public String toJson() {
        try {
            return Writer.MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("closeId=" + closeId + " cannot be written as JSON", e);
        }
    }

    private static final JsonFactory JSON = new JsonFactory();

    /** The ObjectMapper, made only when a report is written. */
    private static final class Writer {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    public int survivors() {
        return (int) children.stream().filter(c -> ChildOutcome.SURVIVOR.equals(c.outcome())).count();
    }

    /**
     * Where this (rebuilt) outcome differs from {@code live}, one readable line per difference;
     * empty when they agree. Children are matched by group and index, so order does not matter;
     * durationNanos is not compared (the live report times itself, the journal times its events).
     */
    public List<String> differencesFrom(CloseOutcome live) {
        List<String> out = new ArrayList<>();
        if (!Objects.equals(poolId, live.poolId)) {
            out.add("poolId rebuilt=" + poolId + " live=" + live.poolId);
        }
        if (closeId != live.closeId) {
            out.add("closeId rebuilt=" + closeId + " live=" + live.closeId);
        }
        if (!Objects.equals(outcome, live.outcome)) {
            out.add("outcome rebuilt=" + outcome + " live=" + live.outcome);
        }
        Map<ChildKey, ChildOutcome> mine = byKey(children);
        Map<ChildKey, ChildOutcome> theirs = byKey(live.children);
        for (Map.Entry<ChildKey, ChildOutcome> e : mine.entrySet()) {
            ChildOutcome l = theirs.get(e.getKey());
            if (l == null) {
                out.add("child " + e.getKey() + " rebuilt but missing from the live report");
            } else if (!e.getValue().equals(l)) {
                out.add("child " + e.getKey() + " rebuilt=" + e.getValue() + " live=" + l);
            }
        }
        for (ChildKey k : theirs.keySet()) {
            if (!mine.containsKey(k)) {
                out.add("child " + k + " in the live report but not rebuilt from the journal");
            }
        }
        return out;
    }

    private static Map<ChildKey, ChildOutcome> byKey(List<ChildOutcome> children) {
        Map<ChildKey, ChildOutcome> m = new TreeMap<>();
        for (ChildOutcome c : children) {
            m.put(c.key(), c);
        }
        return m;
    }
}
