package dev.vigil.child;

/** A handler's view of its child's shutdown request and heartbeat. */
public interface Cancellation {
    /** True once shutdown has been requested; also advances the heartbeat (polling proves the handler is alive). */
    boolean shutdownRequested();

    /** Advances the heartbeat without looking at the shutdown request (a long finalization keeps beating). */
    void beat();
}
