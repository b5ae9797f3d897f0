package dev.vigil.cli;

/** What a terminating signal (INT, TERM, HUP) asks to stop: a run ({@link PoolRunner}) or a session ({@link PoolSession}). */
interface Stoppable {
    /**
     * A stop request, safe from any thread, never blocks: the first closes every open pool, journaled, and makes the
     * command return 128 + {@code signal}; a later one escalates every close at once.
     *
     * @param origin who asks, as journaled ({@code SIGINT}, {@code SIGTERM}, {@code SIGHUP})
     * @return the number of stop requests so far, this one included (1 = the first)
     */
    int requestStop(int signal, String origin);
}
