package dev.vigil.contain;

/** Containment could not be set up or used: the message is one line naming the path and the reason. */
public final class ContainmentException extends RuntimeException {
    public ContainmentException(String message) {
        super(message);
    }

    public ContainmentException(String message, Throwable cause) {
        super(message, cause);
    }
}
