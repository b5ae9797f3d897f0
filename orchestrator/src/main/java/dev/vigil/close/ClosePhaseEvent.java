package dev.vigil.close;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR event (name {@code vigil.ClosePhase}): where one close's time went on the close engine's thread, each field
 * the time from the request ({@code CloseEngine.submit}) to the end of that phase. Committed when the close's future
 * completes; costs nothing unless a recording enables it ({@code -XX:StartFlightRecording}, JMC, or a
 * {@code jdk.jfr.Recording} as CloseBenchmark's). The caller's side is {@link CloseReturnedEvent}.
 */
@Name("vigil.ClosePhase")
@Label("Close phases")
@Category({"Vigil", "Close"})
@Description("One close on the close engine's thread: the time from its request to the end of each phase")
@StackTrace(false)
public final class ClosePhaseEvent extends jdk.jfr.Event {
    @Label("Pool")
    public String pool;

    @Label("Close id")
    public long closeId;

    @Label("Children")
    public int children;

    @Label("Engine took the request")
    @Description("The hop from the caller's thread to the engine's")
    @Timespan(Timespan.NANOSECONDS)
    public long engineStart;

    @Label("Every child told")
    @Description("Fence, children taken, CloseStarted, every shutdown word CAS and doorbell")
    @Timespan(Timespan.NANOSECONDS)
    public long told;

    @Label("Shutdowns journaled")
    @Timespan(Timespan.NANOSECONDS)
    public long published;

    @Label("Last reap")
    @Description("The reaper collected the last child (its own time stamp)")
    @Timespan(Timespan.NANOSECONDS)
    public long lastReap;

    @Label("Last exit handled")
    @Description("The engine handled the last child's exit input")
    @Timespan(Timespan.NANOSECONDS)
    public long lastExit;

    @Label("Released at reaps")
    @Description("Mailboxes released at their child's own reap, before the last exit")
    public int releasedAtReap;

    @Label("Swept")
    @Description("Container kill settled and stray sweep done")
    @Timespan(Timespan.NANOSECONDS)
    public long swept;

    @Label("Settled")
    @Description("Operations caught by the fence ended, the rest of the mailboxes drained and released")
    @Timespan(Timespan.NANOSECONDS)
    public long settled;

    @Label("Reported")
    @Description("Report built and CloseCompleted appended")
    @Timespan(Timespan.NANOSECONDS)
    public long reported;

    @Label("Pool told")
    @Description("The pool forgot the reaped children and removed its container")
    @Timespan(Timespan.NANOSECONDS)
    public long finished;

    @Label("Future completed")
    @Timespan(Timespan.NANOSECONDS)
    public long completed;
}
