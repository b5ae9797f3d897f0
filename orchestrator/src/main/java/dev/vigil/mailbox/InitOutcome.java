package dev.vigil.mailbox;

/** What {@link MailboxHandle#awaitInit} saw: the child reported INIT_READY or INIT_FAILED, or the wait ran out. */
public enum InitOutcome {
    READY, FAILED, TIMED_OUT
}
