package dev.vigil.spawn;

/**
 * A child's exit status could not be collected because something else in the JVM already did (a
 * {@code waitpid(-1)}, an ignored SIGCHLD): its {@link ChildProcess#onExit()} completes with this.
 */
public final class ChildLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ChildLostException(String message) {
        super(message);
    }
}
