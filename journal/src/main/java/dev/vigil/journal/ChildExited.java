package dev.vigil.journal;

/**
 * A child exited while its pool ran (outside any close): exitCode (-1 when a signal ended it), signal (0 if none).
 * policy is what the pool does about it ({@code keep}: journal it, fail its pending command at once, go on).
 *
 * <p>Version 2 carries the restart decision with its inputs, so that the replay re-runs it (RestartIntensity, in
 * close-decisions): the restart settings of the policy (maxRestarts, periodNanos, backoffNanos, maxBackoffNanos; 0
 * unless the policy is {@code restart}), decided at timeNanos; restartsInPeriod, the restart's number within the
 * period (maxRestarts + 1 when this exit crossed the intensity and failed the pool; 0 when nothing was decided, the
 * pool having already failed or started to close; -1 under another policy); restartAfterNanos, the backoff of the
 * restart decided (-1: not restarted).
 */
public record ChildExited(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, int exitCode, int signal, String policy,
        @AddedIn(2) int maxRestarts, @AddedIn(2) long periodNanos, @AddedIn(2) long backoffNanos,
        @AddedIn(2) long maxBackoffNanos, @AddedIn(value = 2, absent = "-1") int restartsInPeriod,
        @AddedIn(value = 2, absent = "-1") long restartAfterNanos) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CHILD_EXITED;
    }
}
