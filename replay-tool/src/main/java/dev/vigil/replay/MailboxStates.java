package dev.vigil.replay;

/**
 * Names of the mailbox state-word states as journaled in {@link dev.vigil.journal.MailboxTransition}
 * ({@link dev.vigil.journal.MailboxStateCodes}, their one place), and where a child in each is.
 */
public final class MailboxStates implements dev.vigil.journal.MailboxStateCodes {
    private MailboxStates() {
    }

    /** The state's name, or {@code STATE_<n>} for a number this tool does not know. */
    public static String name(int state) {
        String name = dev.vigil.journal.MailboxStateCodes.nameOf(state);
        return name != null ? name : "STATE_" + state;
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
