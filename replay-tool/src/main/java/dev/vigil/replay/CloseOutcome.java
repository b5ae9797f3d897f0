package dev.vigil.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A close report in the shape of the live CloseReport JSON: the outcome the orchestrator reported
 * (parsed from {@link dev.vigil.journal.CloseCompleted#reportJson()}) or the one the replay rebuilt.
 * outcome is CLEAN or FAILED (FAILED iff any child is a survivor or was killed by escalation).
 */
public record CloseOutcome(String poolId, long closeId, String outcome, long durationNanos, List<ChildOutcome> children) {
    public static final String CLEAN = "CLEAN";
    public static final String FAILED = "FAILED";

    private static final ObjectMapper MAPPER = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    public CloseOutcome {
        children = List.copyOf(children);
    }

    /** Parses a live report; throws {@link ReplayInputException} naming the close when it is not one. */
    public static CloseOutcome fromJson(String json, long closeId) {
        try {
            CloseOutcome parsed = MAPPER.readValue(json, CloseOutcome.class);
            if (parsed == null || parsed.children == null) {
                throw new ReplayInputException("closeId=" + closeId + " report JSON has no children: " + json);
            }
            return parsed;
        } catch (JsonProcessingException e) {
            throw new ReplayInputException("closeId=" + closeId + " report JSON is unreadable: "
                    + e.getOriginalMessage());
        }
    }

    public String toJson() {
        try {
            return MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("closeId=" + closeId + " cannot be written as JSON", e);
        }
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
