package dev.vigil.journal;

/** A journal could not be written or read; the message names the directory, file and position. */
public class JournalException extends RuntimeException {
    public JournalException(String message) {
        super(message);
    }

    public JournalException(String message, Throwable cause) {
        super(message, cause);
    }
}
