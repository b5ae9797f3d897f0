package dev.vigil.journal;

/** One CAS-made transition of a mailbox state word, drained from the mailbox's transition ring; timeNanos is when the writer made it. */
public record MailboxTransition(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, long seq, int fromState, int toState, String writer, int writerPid) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.MAILBOX_TRANSITION;
    }
}
