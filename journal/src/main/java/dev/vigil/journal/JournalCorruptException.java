package dev.vigil.journal;

/**
 * Reading stopped at damage: a truncated or garbled cycle file, or an event from a newer schema.
 * Every whole event before {@link #index()} was delivered to the reader.
 */
public final class JournalCorruptException extends JournalException {
    private final long index;

    public JournalCorruptException(String message, long index, Throwable cause) {
        super(message, cause);
        this.index = index;
    }

    /** Chronicle index of the damaged excerpt, or -1 where it is not known. */
    public long index() {
        return index;
    }
}
