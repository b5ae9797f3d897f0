package dev.vigil.pool;

/** What a pool child is, which decides how it is started and how close reaches it. */
public enum ChildKind {
    /** The Java child runtime ({@code dev.vigil.child.ChildMain}) running a handler class; mailbox protocol. */
    JAVA(true),
    /** A C program linked with the C child runtime (by default {@code vigil-demo-child}); mailbox protocol. */
    C(true),
    /** Any executable that speaks the mailbox protocol; it gets the documented VIGIL_* handoff environment. */
    MAILBOX_EXEC(true),
    /** A plain executable: no mailbox, supervised by signals only; close sends its stop signal. */
    EXEC(false);

    private final boolean mailbox;

    ChildKind(boolean mailbox) {
        this.mailbox = mailbox;
    }

    public boolean hasMailbox() {
        return mailbox;
    }
}
