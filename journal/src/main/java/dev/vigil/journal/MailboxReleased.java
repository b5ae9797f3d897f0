package dev.vigil.journal;

/** A reaped child's mailbox was freed. */
public record MailboxReleased(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, long mailboxOffset) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.MAILBOX_RELEASED;
    }
}
