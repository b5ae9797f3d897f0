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

    /** The damaged file as the message names it ({@code file=NAME}, relative to the journal dir), or "?" . */
    public String file() {
        String m = getMessage();
        int at = m.indexOf(" file=");
        if (at < 0) {
            return "?";
        }
        int from = at + 6;
        int end = from;
        while (end < m.length() && " :;(".indexOf(m.charAt(end)) < 0) {
            end++;
        }
        return end > from ? m.substring(from, end) : "?";
    }

    /** The message without its leading {@code journal dir=DIR } (the damage alone, wherever the dir went since). */
    public String damage(java.nio.file.Path dir) {
        String prefix = "journal dir=" + dir + " ";
        String m = getMessage();
        return m.startsWith(prefix) ? m.substring(prefix.length()) : m;
    }
}
