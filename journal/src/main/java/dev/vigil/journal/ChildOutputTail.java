package dev.vigil.journal;

/**
 * The last lines a child wrote to one of its streams ({@code stream} {@code stderr}), read by the close from the
 * child's own log file ({@code file}, docs/SPAWNING.md "Children's output") when the child failed: exited non-zero,
 * crashed on a signal, was killed by escalation or survived. {@code tail} is at most a few KiB, whole lines; it is
 * also in the close's report (CloseReport child {@code stderrTail}).
 */
public record ChildOutputTail(long timeNanos, int orchestratorPid, String poolId, long closeId, String group, int index,
        int pid, String stream, String file, String tail) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_OUTPUT_TAIL;
    }
}
