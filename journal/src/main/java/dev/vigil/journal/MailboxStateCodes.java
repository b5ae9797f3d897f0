package dev.vigil.journal;

/**
 * The states of a mailbox state word, numbered as pool-runner users know them (DESIGN section 3), as journaled in
 * {@link MailboxTransition}: the one place of these numbers in Java (the orchestrator's {@code MailboxState} and the
 * replay tool's {@code MailboxStates} take them from here). The same numbers are in
 * {@code native/include/vigil/mailbox.h}. Adding a state needs a journal schema bump.
 */
public interface MailboxStateCodes {
    int IDLE = 0;
    int TASK_READY = 1;
    int TASK_DONE = 2;
    /** Legacy mode only: the closer's shutdown written into the shared state word. */
    int SHUTDOWN = 3;
    int CONTROL_REQUEST = 4;
    int CONTROL_DONE = 5;
    int INIT_READY = 6;
    int INIT_FAILED = 7;

    /** The state's name, or null for a number that names none. */
    static String nameOf(int state) {
        return switch (state) {
            case IDLE -> "IDLE";
            case TASK_READY -> "TASK_READY";
            case TASK_DONE -> "TASK_DONE";
            case SHUTDOWN -> "SHUTDOWN";
            case CONTROL_REQUEST -> "CONTROL_REQUEST";
            case CONTROL_DONE -> "CONTROL_DONE";
            case INIT_READY -> "INIT_READY";
            case INIT_FAILED -> "INIT_FAILED";
            default -> null;
        };
    }
}
