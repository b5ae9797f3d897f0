package dev.vigil.journal;

/**
 * The first event of a fresh journal begun because the one before it was damaged (journald's way): an orchestrator
 * restarted after a crash read its journal dir, found damage, moved the whole directory aside to {@code setAsideDir}
 * (never deleting or overwriting anything) and began this journal in its place. {@code file}, {@code damageIndex}
 * (-1 where the reader could not name one) and {@code damage} (the reader's words) say what it found;
 * {@code lastGoodIndex} is the last event read whole before it (-1: none). vigil-replay reads {@code setAsideDir} as
 * any journal: every event up to the damage, then the damage named.
 */
public record JournalSetAside(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String setAsideDir, String file, long damageIndex, long lastGoodIndex, String damage) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.JOURNAL_SET_ASIDE;
    }
}
