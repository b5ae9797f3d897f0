package dev.vigil.journal;

/** A signal went to a survivor (through its pidfd, or to its process group). */
public record EscalationSent(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, int signal, String target) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.ESCALATION_SENT;
    }
}
