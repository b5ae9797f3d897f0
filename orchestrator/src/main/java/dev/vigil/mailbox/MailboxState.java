package dev.vigil.mailbox;

/**
 * The states of a mailbox state word, numbered as pool-runner users know them. The same numbers are in
 * {@code native/include/vigil/mailbox.h}. Adding a state needs a journal schema bump.
 */
public final class MailboxState {
    public static final int IDLE = 0;
    public static final int TASK_READY = 1;
    public static final int TASK_DONE = 2;
    /** Legacy mode only: the closer's shutdown written into the shared state word. */
    public static final int SHUTDOWN = 3;
    public static final int CONTROL_REQUEST = 4;
    public static final int CONTROL_DONE = 5;
    public static final int INIT_READY = 6;
    public static final int INIT_FAILED = 7;

    private static final String[] NAMES = {
        "IDLE", "TASK_READY", "TASK_DONE", "SHUTDOWN", "CONTROL_REQUEST", "CONTROL_DONE", "INIT_READY", "INIT_FAILED",
    };

    private MailboxState() {
    }

    /** The name of a state, or {@code UNKNOWN(n)}. */
    public static String name(int state) {
        return state >= 0 && state < NAMES.length ? NAMES[state] : "UNKNOWN(" + state + ")";
    }

    /** The number of a state name; fails with name=value context. */
    public static int valueOf(String name) {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i].equals(name)) {
                return i;
            }
        }
        throw new MailboxException("unknown mailbox state: name=" + name);
    }
}
