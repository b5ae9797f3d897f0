package dev.vigil.close.decision;

/**
 * One read of a child's mailbox protocol words, as close sees them (each word read with acquire
 * semantics; the set is not atomic as a whole, which diagnosis tolerates: every rule reads words
 * that only move one way, or is re-checked against the reaper).
 *
 * @param state       the state word's state (DESIGN numbering, IDLE 0 .. INIT_FAILED 7)
 * @param stateName   its name
 * @param writerName  the role that made the last transition of the state word
 * @param seq         the state word's transition sequence number
 * @param legacy      true for a legacy-mode mailbox (SHUTDOWN lives in the state word)
 * @param shutdownWord the sticky shutdown word (0 = unset; unused in legacy mode)
 * @param ackNanos    the child's CLOCK_MONOTONIC stamp of first seeing shutdown, 0 = not acknowledged
 * @param heartbeat   the heartbeat word; only its changes matter
 */
public record MailboxWords(int state, String stateName, String writerName, long seq, boolean legacy,
        long shutdownWord, long ackNanos, long heartbeat) {
    /**
     * The legacy-mode SHUTDOWN state (DESIGN section 3 numbering); the orchestrator's MailboxState.SHUTDOWN
     * equals it (checked by a parity test), this module cannot see that class.
     */
    public static final int LEGACY_SHUTDOWN_STATE = 3;
    /** The parent placed a task: the child runs its task handler until it writes TASK_DONE. */
    public static final int TASK_READY_STATE = 1;
    /** The parent placed a control command: the child runs its control handler until it writes CONTROL_DONE. */
    public static final int CONTROL_REQUEST_STATE = 4;

    /** True when the state word says the child is inside a handler (a command placed, no answer yet). */
    public boolean insideHandler() {
        return state == TASK_READY_STATE || state == CONTROL_REQUEST_STATE;
    }

    /** True when the shutdown request is visible to the child in this mailbox. */
    public boolean shutdownVisible() {
        return legacy ? state == LEGACY_SHUTDOWN_STATE : shutdownWord != 0;
    }
}
