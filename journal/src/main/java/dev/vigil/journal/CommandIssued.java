package dev.vigil.journal;

/** The parent placed a control command or a task in a child's mailbox. */
public record CommandIssued(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String kind, long commandId, int opcode, long argument) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.COMMAND_ISSUED;
    }
}
