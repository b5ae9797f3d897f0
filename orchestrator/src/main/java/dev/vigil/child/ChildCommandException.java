package dev.vigil.child;

/** Thrown by a handler to fail a command with a chosen error code (any other exception is {@link #HANDLER_FAILED}). */
public class ChildCommandException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Any exception other than this one thrown by a handler. */
    public static final int HANDLER_FAILED = 1;
    /** The handler does not implement this kind of command. */
    public static final int UNSUPPORTED = 2;

    private final int errorCode;

    public ChildCommandException(int errorCode, String message) {
        super(message);
        if (errorCode == 0) {
            throw new IllegalArgumentException("errorCode must be non-zero: errorCode=0");
        }
        this.errorCode = errorCode;
    }

    public int errorCode() {
        return errorCode;
    }
}
