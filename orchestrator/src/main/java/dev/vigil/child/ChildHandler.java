package dev.vigil.child;

/**
 * The user code of a Java child: built with its public no-argument constructor (constructor or
 * {@link #onInit} throwing = INIT_FAILED), then called by the serve loop on one thread. Long handlers should
 * poll {@link Cancellation#shutdownRequested()} (which also beats the heartbeat) and return early when it is
 * true; a handler that never returns never lets the loop see shutdown, and stops beating.
 */
public interface ChildHandler {
    /** Called once after attaching, before INIT_READY is reported. */
    default void onInit(ChildContext context) throws Exception {
    }

    /** Handles one control command; the return value is the command's result. Throw {@link ChildCommandException} to pick an error code. */
    long onControl(int opcode, long argument, Cancellation cancellation) throws Exception;

    /** Handles one task; the return value is the task's result. Without it, a task fails with {@code UNSUPPORTED}. */
    default long onTask(int opcode, long argument, Cancellation cancellation) throws Exception {
        throw new ChildCommandException(ChildCommandException.UNSUPPORTED, "tasks not supported by " + getClass().getName());
    }

    /** Finalization after shutdown was seen and acknowledged; beat through {@code cancellation} while it takes long. */
    default void onShutdown(Cancellation cancellation) throws Exception {
    }

    /** The exit status after a normal shutdown (0 unless a test handler wants otherwise). */
    default int exitCode() {
        return 0;
    }

    /**
     * Test and demo only: false makes the serve loop ignore the shutdown request altogether (never acks,
     * never exits), to reproduce a child that does not observe shutdown.
     */
    default boolean honoursShutdown() {
        return true;
    }
}
