package dev.vigil.spawn;

/** A native part Vigil needs (the spawn shim, a syscall) is not there: {@code native part unavailable because ...}. */
public final class NativePartUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NativePartUnavailableException(String because) {
        super("native part unavailable because " + because);
    }

    public NativePartUnavailableException(String because, Throwable cause) {
        super("native part unavailable because " + because, cause);
    }
}
