package dev.vigil.close;

import java.util.List;

import dev.vigil.journal.CommandIssued;
import dev.vigil.journal.JournalEvent;

/** Where the close engine writes its events, and reads a child's last few back for a diagnosis. */
public interface CloseJournal {
    void append(JournalEvent event);

    /** The child's last events, oldest first (short descriptions). */
    List<String> lastEvents(String poolId, String group, int index);

    int orchestratorPid();

    /**
     * Someone is about to wait for what was appended so far (a close's caller, for its CloseCompleted): write it now.
     * On the thread that holds its wake-ups ({@link #holdWakes}), also releases what it held.
     */
    default void hurry() {
    }

    /**
     * The calling thread's appends no longer wake the journal's writer thread: the caller releases them itself
     * ({@link #hurry}) within a bound of its own, looking at {@link #heldNanos} (the close engine's thread).
     */
    default void holdWakes() {
    }

    /** On the holding thread: nanoseconds since its oldest append that has not woken the writer, or -1 when none. */
    default long heldNanos() {
        return -1;
    }

    /** The command issued to the child and not yet completed or failed (the handler it may be inside), or null. */
    default CommandIssued openCommand(String poolId, String group, int index) {
        return null;
    }
}
