package dev.vigil.child;

/** Exit statuses of a child runtime (the C runtime uses the same numbers). */
public final class ChildExitCodes {
    /** Shutdown seen, acknowledged and finalized. */
    public static final int SHUTDOWN = 0;
    /** The handoff or the mailbox was unusable (missing variable, wrong layout version, bad magic). */
    public static final int ATTACH_FAILED = 2;
    /** The handler could not be created or its init failed; INIT_FAILED is in the state word. */
    public static final int INIT_FAILED = 3;
    /** The parent named in VIGIL_PARENT_PID is gone. */
    public static final int PARENT_GONE = 4;
    /** In-process runs only: the runtime was told to stop from outside. */
    public static final int ABORTED = 5;

    private ChildExitCodes() {
    }
}
