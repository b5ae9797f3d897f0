package dev.vigil.close;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * JFR event (name {@code vigil.CloseReturned}): one close on its caller's thread, from just before it was submitted
 * to the engine until {@code Pool.close()} returned; the engine's side is {@link ClosePhaseEvent} (same close id).
 */
@Name("vigil.CloseReturned")
@Label("Close returned")
@Category({"Vigil", "Close"})
@Description("One close on its caller's thread: when its report arrived and when the journal was flushed")
@StackTrace(false)
public final class CloseReturnedEvent extends jdk.jfr.Event {
    @Label("Pool")
    public String pool;

    @Label("Close id")
    public long closeId;

    @Label("Report arrived")
    @Description("From the submit to the caller's wake-up with the report")
    @Timespan(Timespan.NANOSECONDS)
    public long woke;

    @Label("Journal flushed")
    @Description("From the submit to the close's events being written (the caller's flush)")
    @Timespan(Timespan.NANOSECONDS)
    public long flushed;
}
