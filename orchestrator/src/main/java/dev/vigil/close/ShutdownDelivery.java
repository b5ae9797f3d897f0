package dev.vigil.close;

/**
 * What the broadcast did for one child: the channel ({@code SHUTDOWN_WORD} or {@code SIGNAL:<n>}),
 * whether this close's CAS won (always true for a signal), and the word the CAS found.
 */
public record ShutdownDelivery(String channel, boolean casWon, long observedWord) {
    public static final String SHUTDOWN_WORD = "SHUTDOWN_WORD";

    public static ShutdownDelivery signal(int signal) {
        return new ShutdownDelivery("SIGNAL:" + signal, true, 0);
    }
}
