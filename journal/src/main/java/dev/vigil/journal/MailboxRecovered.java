package dev.vigil.journal;

/**
 * A mailbox a dead orchestrator ({@code deadPid}) left allocated was freed by the recovery of the next
 * one, after no process of the dead one was alive any more.
 */
public record MailboxRecovered(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, long mailboxOffset, int deadPid) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.MAILBOX_RECOVERED;
    }
}
