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

    /** Someone is about to wait for what was appended so far (a close's caller, for its CloseCompleted): write it now. */
    default void hurry() {
    }

    /** The command issued to the child and not yet completed or failed (the handler it may be inside), or null. */
    default CommandIssued openCommand(String poolId, String group, int index) {
        return null;
    }
}
