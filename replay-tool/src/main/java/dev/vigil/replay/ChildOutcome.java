package dev.vigil.replay;

import java.util.Objects;

import dev.vigil.close.decision.CloseReport;

/**
 * One child's line of a close report, field for field the {@code children[]} entry of the live
 * CloseReport JSON that {@link dev.vigil.journal.CloseCompleted#reportJson()} carries.
 * exitCode is -1 when a signal ended the child or it was not reaped; signal is 0 if none;
 * sinceBroadcastNanos is -1 when not reaped; diagnosis and evidence are null unless diagnosed.
 */
public record ChildOutcome(String group, int index, int pid, String kind, String outcome, int exitCode, int signal,
        long sinceBroadcastNanos, String diagnosis, String evidence) {
    public static final String EXITED = "EXITED";
    public static final String SIGNALED = "SIGNALED";
    public static final String KILLED_BY_ESCALATION = "KILLED_BY_ESCALATION";
    public static final String SURVIVOR = "SURVIVOR";

    /** Field by field; written out for the reason {@link ChildKey#equals} gives. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ChildOutcome c && index == c.index && pid == c.pid && exitCode == c.exitCode
                && signal == c.signal && sinceBroadcastNanos == c.sinceBroadcastNanos && Objects.equals(group, c.group)
                && Objects.equals(kind, c.kind) && Objects.equals(outcome, c.outcome)
                && Objects.equals(diagnosis, c.diagnosis) && Objects.equals(evidence, c.evidence);
    }

    @Override
    public int hashCode() {
        return Objects.hash(group, index, pid, kind, outcome, exitCode, signal, sinceBroadcastNanos, diagnosis, evidence);
    }

    public ChildKey key() {
        return new ChildKey(group, index);
    }

    /** Survivors and children killed by escalation make a close FAILED. */
    public boolean failsTheClose() {
        for (CloseReport.ChildOutcome o : CloseReport.ChildOutcome.values()) {
            if (o.name().equals(outcome)) {
                return o.failsTheClose();
            }
        }
        return false; // a name this tool does not know (a newer orchestrator wrote it)
    }
}
