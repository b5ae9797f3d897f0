package dev.vigil.journal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Transitions of one mailbox's state word drained from its transition ring in one pass, packed: what a run of
 * {@link MailboxTransition} events would say, in one event (journaling one event per transition cost ~650 ns of CPU
 * each, docs/BENCHMARKS.md "Transition ring flow control"). timeNanos is the first transition's. {@code records} holds
 * {@link #RECORD_LENGTH}-byte records in journal order (seq order), each little-endian:
 * <pre>
 *   0        8          16                                    24
 *   | seq    | timeNanos | from u8 | to u8 | writer u8 | 0 u8 | writerPid u32 |
 * </pre>
 * (the ring record of docs/MAILBOX.md without its ticket word). {@code writerNames} names the writer codes, space
 * separated, code 0 first (e.g. {@code NONE PARENT CHILD CLOSER}): the journal says what its codes mean. Readers see
 * each record as the {@link MailboxTransition} it stands for ({@link #transitions()}, {@link #expand}), cited by this
 * event's journal index and the record's position in it (0 first).
 */
public record MailboxTransitionBatch(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String writerNames, byte[] records) implements JournalEvent {
    /** Bytes of one packed transition. */
    public static final int RECORD_LENGTH = 24;
    /** The most transitions one batch holds: a drained batch beyond it is journaled as several (an excerpt stays small). */
    public static final int MAX_TRANSITIONS = 1024;

    public MailboxTransitionBatch {
        records = records == null ? new byte[0] : records;
        if (records.length % RECORD_LENGTH != 0) {
            throw new IllegalArgumentException("MailboxTransitionBatch records is " + records.length
                    + " bytes, not a whole number of " + RECORD_LENGTH + "-byte transitions");
        }
    }

    @Override
    public EventType type() {
        return EventType.MAILBOX_TRANSITION_BATCH;
    }

    /** How many transitions the batch holds. */
    public int size() {
        return records.length / RECORD_LENGTH;
    }

    /** The seq of the transition at {@code position}. */
    public long seq(int position) {
        return FieldCursor.longAt(records, position * RECORD_LENGTH);
    }

    /** Every transition of the batch as the event that would have said it alone, in order. */
    public List<MailboxTransition> transitions() {
        return transitions(0, size());
    }

    /** The transitions at positions {@code from} (inclusive) to {@code to} (exclusive), in order. */
    public List<MailboxTransition> transitions(int from, int to) {
        java.util.Objects.checkFromToIndex(from, to, size());
        String[] names = writerNames == null || writerNames.isEmpty() ? new String[0] : writerNames.split(" ");
        List<MailboxTransition> out = new ArrayList<>(to - from);
        for (int p = from * RECORD_LENGTH; p < to * RECORD_LENGTH; p += RECORD_LENGTH) {
            long origin = FieldCursor.longAt(records, p + 16);
            int writer = (int) (origin >>> 16 & 0xFF);
            out.add(new MailboxTransition(FieldCursor.longAt(records, p + 8), orchestratorPid, poolId, closeId, group, index,
                    FieldCursor.longAt(records, p), (int) (origin & 0xFF), (int) (origin >>> 8 & 0xFF),
                    writer < names.length ? names[writer] : "UNKNOWN(" + writer + ")", (int) (origin >>> 32)));
        }
        return out;
    }

    /** The transitions an event says: itself for a {@link MailboxTransition}, a batch's, none for any other kind. */
    public static List<MailboxTransition> expand(JournalEvent e) {
        if (e instanceof MailboxTransition t) {
            return List.of(t);
        }
        return e instanceof MailboxTransitionBatch b ? b.transitions() : List.of();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MailboxTransitionBatch b && timeNanos == b.timeNanos && orchestratorPid == b.orchestratorPid
                && closeId == b.closeId && index == b.index && java.util.Objects.equals(poolId, b.poolId)
                && java.util.Objects.equals(group, b.group) && java.util.Objects.equals(writerNames, b.writerNames)
                && Arrays.equals(records, b.records);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(timeNanos, orchestratorPid, poolId, closeId, group, index, writerNames)
                * 31 + Arrays.hashCode(records);
    }

    @Override
    public String toString() {
        return "MailboxTransitionBatch[timeNanos=" + timeNanos + ", orchestratorPid=" + orchestratorPid + ", poolId=" + poolId
                + ", closeId=" + closeId + ", group=" + group + ", index=" + index + ", writerNames=" + writerNames
                + ", transitions=" + size() + "]";
    }

    /**
     * Packs transitions into a batch: {@link #add} them in order, then {@link #build} the event (which empties the
     * builder). Not thread-safe.
     */
    public static final class Builder {
        private byte[] records = new byte[64 * RECORD_LENGTH];
        private int count;

        /** Adds one transition after the others. */
        public void add(long seq, long timeNanos, int fromState, int toState, int writerCode, int writerPid) {
            addPacked(seq, timeNanos, (fromState & 0xFFL) | (toState & 0xFFL) << 8 | (writerCode & 0xFFL) << 16
                    | (writerPid & 0xFFFF_FFFFL) << 32);
        }

        /**
         * Adds one transition whose from, to, writer code and pid are packed in {@code origin} as a record holds them
         * (bits 0-7, 8-15, 16-23, 32-63): the ring record's origin word, copied as it is.
         */
        public void addPacked(long seq, long timeNanos, long origin) {
            int p = count * RECORD_LENGTH;
            if (p + RECORD_LENGTH > records.length) {
                records = Arrays.copyOf(records, records.length * 2);
            }
            putLong(records, p, seq);
            putLong(records, p + 8, timeNanos);
            putLong(records, p + 16, origin);
            count++;
        }

        /** Transitions added since the last build. */
        public int size() {
            return count;
        }

        /** The batch of the transitions added since the last build (at least one), its time the first one's. */
        public MailboxTransitionBatch build(int orchestratorPid, String poolId, long closeId, String group, int index,
                String writerNames) {
            if (count == 0) {
                throw new IllegalStateException("an empty MailboxTransitionBatch");
            }
            byte[] packed = records.length == count * RECORD_LENGTH ? records : Arrays.copyOf(records, count * RECORD_LENGTH);
            if (packed == records) { // a full array is handed over, not copied
                records = new byte[records.length];
            }
            count = 0;
            return new MailboxTransitionBatch(FieldCursor.longAt(packed, 8), orchestratorPid, poolId, closeId, group, index,
                    writerNames, packed);
        }

        private static final java.lang.invoke.VarHandle LONGS = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(
                long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

        private static void putLong(byte[] a, int p, long v) {
            LONGS.set(a, p, v);
        }
    }
}
