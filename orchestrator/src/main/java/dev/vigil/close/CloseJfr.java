package dev.vigil.close;

/**
 * The close's JFR events ({@link ClosePhaseEvent}, {@link CloseReturnedEvent}), only while JFR runs: loading an event
 * class starts JFR's machinery (~0.3 s of a cold JVM's first close), so no close touches one unless a recording was
 * started in this JVM ({@code -XX:StartFlightRecording}, {@code jcmd JFR.start}, a {@code jdk.jfr.Recording}). The
 * events are typed {@code Object} outside this class, so that nothing else loads them either.
 */
public final class CloseJfr {
    private CloseJfr() {
    }

    /** True once a recording was started in this JVM (cheap after the first call). */
    public static boolean on() {
        return jdk.jfr.FlightRecorder.isInitialized();
    }

    /** A begun {@link ClosePhaseEvent} when JFR runs, else null. */
    static Object beginPhases() {
        if (!on()) {
            return null;
        }
        ClosePhaseEvent e = new ClosePhaseEvent();
        e.begin();
        return e;
    }

    /** Ends and commits {@code event} (from {@link #beginPhases}) with one close's phases, nanoseconds from its request. */
    static void commitPhases(Object event, String pool, long closeId, int children, long[] at, int releasedAtReap) {
        ClosePhaseEvent e = (ClosePhaseEvent) event;
        e.end();
        if (!e.shouldCommit()) {
            return;
        }
        e.pool = pool;
        e.closeId = closeId;
        e.children = children;
        e.engineStart = at[CloseMachine.Stamp.ENGINE_START];
        e.told = at[CloseMachine.Stamp.TOLD];
        e.published = at[CloseMachine.Stamp.PUBLISHED];
        e.lastReap = at[CloseMachine.Stamp.LAST_REAP];
        e.lastExit = at[CloseMachine.Stamp.LAST_EXIT];
        e.swept = at[CloseMachine.Stamp.SWEPT];
        e.settled = at[CloseMachine.Stamp.SETTLED];
        e.reported = at[CloseMachine.Stamp.REPORTED];
        e.finished = at[CloseMachine.Stamp.FINISHED];
        e.completed = at[CloseMachine.Stamp.COMPLETED];
        e.releasedAtReap = releasedAtReap;
        e.commit();
    }

    /** A begun {@link CloseReturnedEvent} when JFR runs, else null. */
    public static Object beginReturned() {
        if (!on()) {
            return null;
        }
        CloseReturnedEvent e = new CloseReturnedEvent();
        e.begin();
        return e;
    }

    /** Ends and commits {@code event} (from {@link #beginReturned}); times in nanoseconds from the submit. */
    public static void commitReturned(Object event, String pool, long closeId, long woke, long flushed) {
        CloseReturnedEvent e = (CloseReturnedEvent) event;
        e.end();
        if (!e.shouldCommit()) {
            return;
        }
        e.pool = pool;
        e.closeId = closeId;
        e.woke = woke;
        e.flushed = flushed;
        e.commit();
    }
}
