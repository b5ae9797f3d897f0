package dev.vigil.journal;

/** A child outlived the reap budget; its diagnosis class and the evidence behind it. */
public record SurvivorDiagnosed(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, String diagnosis, String evidence) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.SURVIVOR_DIAGNOSED;
    }
}
