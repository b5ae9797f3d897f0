package dev.vigil.mailbox;

/** One transition-ring record as read back: which ring ticket, the state-word seq it wrote, when, from, to, by whom. */
public record TransitionRecord(long ticket, long seq, long timeNanos, int fromState, int toState, int writerCode, int writerPid) {
    /** The slot of a ticket that is claimed but not yet published (or was never written). */
    public static final TransitionRecord PENDING = new TransitionRecord(-1, -1, 0, -1, -1, 0, 0);
    /** The slot of a ticket that a later ticket already reused. */
    public static final TransitionRecord OVERWRITTEN = new TransitionRecord(-2, -1, 0, -1, -1, 0, 0);

    public boolean readable() {
        return ticket >= 0;
    }

    @Override
    public String toString() {
        if (this == PENDING) {
            return "PENDING";
        }
        if (this == OVERWRITTEN) {
            return "OVERWRITTEN";
        }
        return "#" + seq + " " + MailboxState.name(fromState) + "->" + MailboxState.name(toState) + " by "
                + WriterRole.nameOf(writerCode) + " pid=" + writerPid + " ticket=" + ticket;
    }
}
