package dev.vigil.journal;

/**
 * A child exited while its pool ran (outside any close): exitCode (-1 when a signal ended it), signal (0 if none).
 * policy is what the pool does about it ({@code keep}: journal it, fail its pending command at once, go on).
 */
public record ChildExited(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, int exitCode, int signal, String policy) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_EXITED;
    }
}
