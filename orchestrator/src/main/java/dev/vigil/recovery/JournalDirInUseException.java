package dev.vigil.recovery;

/** Another live orchestrator owns the journal directory; the message is one line naming it. */
public final class JournalDirInUseException extends RuntimeException {
    private final int ownerPid;

    public JournalDirInUseException(String message, int ownerPid) {
        super(message);
        this.ownerPid = ownerPid;
    }

    /** The owner's pid, or -1 when its lock file does not say. */
    public int ownerPid() {
        return ownerPid;
    }
}
