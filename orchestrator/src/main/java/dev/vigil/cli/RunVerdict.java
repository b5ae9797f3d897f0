package dev.vigil.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What decides a run's exit code, counted by reason as the run meets them ("2 child(ren) exited during the run"):
 * the run fails exactly when a reason was met, and ends with one line that says why, even when every close was clean.
 * Thread-safe.
 */
final class RunVerdict {
    private final Map<String, Integer> reasons = new LinkedHashMap<>();

    synchronized void count(String reason) {
        reasons.merge(reason, 1, Integer::sum);
    }

    /** Whether any reason was met: the run exits {@link PoolRunner#CLOSE_FAILED}. */
    synchronized boolean failed() {
        return !reasons.isEmpty();
    }

    /** "result: CLEAN (exit 0)", or "result: FAILED (exit 1): N reason; M reason" in the order first met. */
    synchronized String line() {
        if (reasons.isEmpty()) {
            return "result: CLEAN (exit " + PoolRunner.CLEAN + ")";
        }
        return "result: FAILED (exit " + PoolRunner.CLOSE_FAILED + "): " + reasons.entrySet().stream()
                .map(e -> e.getValue() + " " + e.getKey()).collect(Collectors.joining("; "));
    }
}
