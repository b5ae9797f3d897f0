package dev.vigil.journal;

/** The shutdown request reached one child: the shutdown-word CAS (won, or the word it found), or the stop signal of a plain executable. */
public record ShutdownPublished(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, String channel, long epoch, boolean casWon, long observedWord) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.SHUTDOWN_PUBLISHED;
    }
}
