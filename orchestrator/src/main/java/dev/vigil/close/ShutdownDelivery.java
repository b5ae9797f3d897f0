package dev.vigil.close;

/**
 * What the broadcast did for one child: the channel ({@code SHUTDOWN_WORD}; {@code STATE_WORD} for a
 * legacy-mode mailbox, where SHUTDOWN is stored into the shared state word; or {@code SIGNAL:<n>}),
 * whether this close's CAS won (always true for a signal), the word the CAS found, and when the CAS (or the
 * signal) happened, read just before it (a child cannot see the word earlier): the time ShutdownPublished carries.
 */
public record ShutdownDelivery(String channel, boolean casWon, long observedWord, long timeNanos) {
    public static final String SHUTDOWN_WORD = "SHUTDOWN_WORD";
    /** Legacy mode (reproduction only): SHUTDOWN written into the state word, where a child's store can erase it. */
    public static final String STATE_WORD = "STATE_WORD";

    public static ShutdownDelivery signal(int signal, long timeNanos) {
        return new ShutdownDelivery("SIGNAL:" + signal, true, 0, timeNanos);
    }
}
