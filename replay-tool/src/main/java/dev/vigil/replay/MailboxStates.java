package dev.vigil.replay;

/**
 * Names of the mailbox state-word states as journaled in {@link dev.vigil.journal.MailboxTransition}
 * (DESIGN section 3; the numbering pool-runner users know).
 */
public final class MailboxStates {
    public static final int IDLE = 0;
    public static final int TASK_READY = 1;
    public static final int TASK_DONE = 2;
    /** Written into the state word by the closer in legacy mode only. */
    public static final int SHUTDOWN = 3;
    public static final int CONTROL_REQUEST = 4;
    public static final int CONTROL_DONE = 5;
    public static final int INIT_READY = 6;
    public static final int INIT_FAILED = 7;

    private static final String[] NAMES = {
        "IDLE", "TASK_READY", "TASK_DONE", "SHUTDOWN", "CONTROL_REQUEST", "CONTROL_DONE", "INIT_READY", "INIT_FAILED",
    };

    private MailboxStates() {
    }

    /** The state's name, or {@code STATE_<n>} for a number this tool does not know. */
    public static String name(int state) {
        return state >= 0 && state < NAMES.length ? NAMES[state] : "STATE_" + state;
    }

    /** Where a child in this state is, in words a reader of a verdict understands. */
    public static String whereTheChildIs(int state) {
        switch (state) {
            case CONTROL_REQUEST:
                return "inside a control handler";
            case TASK_READY:
                return "inside a task";
            case IDLE:
                return "idle in its loop";
            case INIT_READY:
                // the child's loop runs from INIT_READY on (docs/MAILBOX.md, step 4): a child never sent a command stays there
                return "idle in its loop (ready, never sent a command)";
            default:
                return "in state " + name(state);
        }
    }
}
