package dev.vigil.journal;

/**
 * What a journal writer did not write once writing failed (a full disk, a stalled appender): the
 * journal holds every event before {@link #fromIndex()} and none from {@link #firstNotWritten()} on.
 *
 * @param dir             the journal directory
 * @param fromIndex       the journal index the first event not written would have had, -1 when not known
 * @param firstNotWritten the first event not written (kind, pool, close, time)
 * @param notWritten      how many events were not written, so far
 * @param reason          why, in plain words (e.g. "no space left on /var/lib/vigil (tmpfs)")
 */
public record JournalGap(String dir, long fromIndex, String firstNotWritten, long notWritten, String reason) {

    /** One line for reports and logs. */
    public String describe() {
        return "journal dir=" + dir + " is incomplete from index="
                + (fromIndex < 0 ? "?" : "0x" + Long.toHexString(fromIndex)) + ": " + notWritten
                + " events not written, from " + firstNotWritten + " on: " + reason;
    }

    static String describeEvent(JournalEvent e) {
        return e.type().recordClass().getSimpleName() + " (pool=" + e.poolId() + " close=" + e.closeId()
                + " timeNanos=" + e.timeNanos() + ")";
    }
}
