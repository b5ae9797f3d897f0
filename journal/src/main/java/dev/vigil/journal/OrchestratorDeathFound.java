package dev.vigil.journal;

/**
 * An orchestrator opening a journal found what a previous, dead orchestrator ({@code deadPid}, its
 * process start time in clock ticks) left, and recovered it: processes it killed, containers removed,
 * mailboxes freed, and the guardian's record of that death (empty when there was none).
 */
public record OrchestratorDeathFound(long timeNanos, int orchestratorPid, String poolId, long closeId,
        int deadPid, long deadStartTicks, int processesKilled, int containersRemoved, int mailboxesFreed,
        String guardianRecord) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.ORCHESTRATOR_DEATH_FOUND;
    }
}
