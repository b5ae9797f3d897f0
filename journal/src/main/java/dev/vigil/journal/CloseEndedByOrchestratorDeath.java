package dev.vigil.journal;

/**
 * A close that started and never completed because its orchestrator ({@code deadPid}) died; journaled
 * by the next orchestrator's recovery, after it made sure none of the close's children is alive.
 * {@code unreaped} lists the children the dead orchestrator had not reaped.
 */
public record CloseEndedByOrchestratorDeath(long timeNanos, int orchestratorPid, String poolId, long closeId,
        int deadPid, String unreaped) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.CLOSE_ENDED_BY_ORCHESTRATOR_DEATH;
    }
}
