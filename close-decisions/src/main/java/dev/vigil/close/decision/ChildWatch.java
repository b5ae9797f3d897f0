package dev.vigil.close.decision;

/**
 * What a close has seen of one child's mailbox since its broadcast, and the rule of what counts as
 * progress: a first acknowledgement of shutdown, or a heartbeat advance of a child that has acknowledged it.
 * Heartbeats before an ack do not count: a legacy child whose SHUTDOWN was overwritten keeps beating in its
 * loop forever. (A reap is progress too; the close knows that without a watch.) Pure and single-threaded:
 * the caller passes the words it read and the time it read them.
 */
public final class ChildWatch {
    private long ackNanos;
    private long heartbeat;
    private long lastBeatSeenNanos;

    /** What one observation found. */
    public record Seen(boolean firstAck, boolean beat, boolean progress) {
        static final Seen NOTHING = new Seen(false, false, false);
    }

    /**
     * Starts watching at the broadcast: {@code words} are the mailbox words then (null for a child without
     * a mailbox); the heartbeat age counts from {@code broadcastNanos} until the first beat is seen.
     */
    public ChildWatch(MailboxWords words, long broadcastNanos) {
        this.lastBeatSeenNanos = broadcastNanos;
        if (words != null) {
            this.heartbeat = words.heartbeat();
        }
    }

    /** Folds in one read of the child's words at {@code nowNanos}. */
    public Seen observe(MailboxWords words, long nowNanos) {
        if (words == null) {
            return Seen.NOTHING;
        }
        return observe(words.ackNanos(), words.heartbeat(), nowNanos);
    }

    /** Same, from the two words that matter: the ack stamp (0 = none) and the heartbeat counter. */
    public Seen observe(long ackWord, long heartbeatWord, long nowNanos) {
        boolean firstAck = false;
        if (ackNanos == 0 && ackWord != 0) {
            ackNanos = ackWord;
            firstAck = true;
        }
        boolean beat = false;
        if (heartbeatWord != heartbeat) {
            heartbeat = heartbeatWord;
            lastBeatSeenNanos = nowNanos;
            beat = true;
        }
        boolean progress = firstAck || (beat && ackNanos != 0);
        return firstAck || beat ? new Seen(firstAck, beat, progress) : Seen.NOTHING;
    }

    /** The child's own stamp of first seeing shutdown; 0 when not seen yet. */
    public long ackNanos() {
        return ackNanos;
    }

    /** The last heartbeat value seen. */
    public long heartbeat() {
        return heartbeat;
    }

    /** Time since the heartbeat last changed (since the broadcast if it never did). */
    public long heartbeatAgeNanos(long nowNanos) {
        return nowNanos - lastBeatSeenNanos;
    }
}
