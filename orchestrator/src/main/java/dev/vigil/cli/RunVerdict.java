package dev.vigil.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What decided a run's exit code, counted by reason as the run meets them ("2 child(ren) exited during the run"),
 * so the run ends with one line that says why it exits 1 even when every close was clean. Thread-safe.
 */
final class RunVerdict {
    private final Map<String, Integer> reasons = new LinkedHashMap<>();

    synchronized void count(String reason) {
        reasons.merge(reason, 1, Integer::sum);
    }

    /** "result: CLEAN (exit 0)", or "result: FAILED (exit 1): N reason; M reason" in the order first met. */
    synchronized String line(boolean failed) {
        if (!failed && reasons.isEmpty()) {
            return "result: CLEAN (exit " + PoolRunner.CLEAN + ")";
        }
        String why = reasons.entrySet().stream().map(e -> e.getValue() + " " + e.getKey())
                .collect(Collectors.joining("; "));
        return "result: FAILED (exit " + PoolRunner.CLOSE_FAILED + ")" + (why.isEmpty() ? "" : ": " + why);
    }
}
