package dev.vigil.pool;

/** What a pool child is, which decides how it is started and how close reaches it. */
public enum ChildKind {
    /** The Java child runtime ({@code dev.vigil.child.ChildMain}) running a handler class; mailbox protocol. */
    JAVA(true, true),
    /** The Python child runtime ({@code python3 -m vigil_child}, over the C runtime) running a handler class; mailbox protocol. */
    PYTHON(true, true),
    /** A C program linked with the C child runtime (by default {@code vigil-demo-child}); mailbox protocol. */
    C(true, false),
    /** Any executable that speaks the mailbox protocol; it gets the documented VIGIL_* handoff environment. */
    MAILBOX_EXEC(true, false),
    /** A plain executable: no mailbox, supervised by signals only; close sends its stop signal. */
    EXEC(false, false);

    private final boolean mailbox;
    private final boolean userCode;

    ChildKind(boolean mailbox, boolean userCode) {
        this.mailbox = mailbox;
        this.userCode = userCode;
    }

    /** True for the runtimes that load a user's handler (JAVA, PYTHON): they take a class path and runtime options. */
    public boolean runsUserCode() {
        return userCode;
    }

    public boolean hasMailbox() {
        return mailbox;
    }
}
