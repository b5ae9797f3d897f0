package dev.vigil.journal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Transitions of one mailbox's state word drained from its transition ring in one pass, packed: what a run of
 * {@link MailboxTransition} events would say, in one event (journaling one event per transition cost ~650 ns of CPU
 * each, docs/BENCHMARKS.md "Transition ring flow control"). timeNanos is the first transition's. Each transition is
 * (seq, timeNanos, origin), origin being the ring record's word {@code from | to << 8 | writer << 16 | writerPid << 32}
 * (docs/MAILBOX.md, "Ring record"); {@code encoding} says how {@code records} holds them, in journal order (seq order):
 * <ul>
 *   <li>{@link #ENCODING_FIXED} (0; layout version 1, whose bodies have no encoding field): {@value #RECORD_LENGTH}
 *       bytes a transition, little-endian {@code seq | timeNanos | origin};</li>
 *   <li>{@link #ENCODING_DELTA} (1; what the drainer writes since layout version 2): a varint count, then each
 *       transition against the one before (3 bytes for a transition of a busy ring, against 24); see
 *       docs/JOURNAL.md, "Packed transitions".</li>
 * </ul>
 * {@code writerNames} names the writer codes, space separated, code 0 first (e.g. {@code NONE PARENT CHILD CLOSER}):
 * the journal says what its codes mean. Readers see each record as the {@link MailboxTransition} it stands for
 * ({@link #transitions()}, {@link #expand}; {@link Reader} without allocating), cited by this event's journal index and
 * the record's position in it (0 first). Records that do not decode whole are refused when the event is made (a
 * reader names the kind), so every accessor reads them without a surprise.
 */
public record MailboxTransitionBatch(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, String writerNames, byte[] records, @AddedIn(2) int encoding) implements JournalEvent {
    /** Bytes of one transition in {@link #ENCODING_FIXED}. */
    public static final int RECORD_LENGTH = 24;
    /** The most transitions one batch holds: a drained batch beyond it is journaled as several (an excerpt stays small). */
    public static final int MAX_TRANSITIONS = 1024;
    /** {@value #RECORD_LENGTH}-byte records: every batch of layout version 1. */
    public static final int ENCODING_FIXED = 0;
    /** A varint count, then each transition against the one before (docs/JOURNAL.md, "Packed transitions"). */
    public static final int ENCODING_DELTA = 1;

    public MailboxTransitionBatch {
        records = records == null ? new byte[0] : records;
        if (encoding == ENCODING_FIXED) {
            if (records.length % RECORD_LENGTH != 0) {
                throw new IllegalArgumentException("MailboxTransitionBatch records is " + records.length
                        + " bytes, not a whole number of " + RECORD_LENGTH + "-byte transitions");
            }
        } else if (encoding == ENCODING_DELTA) {
            Delta.check(records);
        } else {
            throw new IllegalArgumentException("MailboxTransitionBatch encoding=" + encoding + " is not one this reader knows ("
                    + ENCODING_FIXED + " fixed, " + ENCODING_DELTA + " delta)");
        }
    }

    /** A batch of layout version 1: {@value #RECORD_LENGTH}-byte records. */
    public MailboxTransitionBatch(long timeNanos, int orchestratorPid, String poolId, long closeId, String group, int index,
            String writerNames, byte[] records) {
        this(timeNanos, orchestratorPid, poolId, closeId, group, index, writerNames, records, ENCODING_FIXED);
    }

    @Override
    public EventType type() {
        return EventType.MAILBOX_TRANSITION_BATCH;
    }

    /** How many transitions the batch holds. */
    public int size() {
        return encoding == ENCODING_FIXED ? records.length / RECORD_LENGTH : Delta.count(records);
    }

    /** Every transition of the batch as the event that would have said it alone, in order. */
    public List<MailboxTransition> transitions() {
        return transitions(0, size());
    }

    /** The transitions at positions {@code from} (inclusive) to {@code to} (exclusive), in order. */
    public List<MailboxTransition> transitions(int from, int to) {
        java.util.Objects.checkFromToIndex(from, to, size());
        List<MailboxTransition> out = new ArrayList<>(to - from);
        Reader r = new Reader().reset(this);
        for (int position = 0; position < to && r.next(); position++) {
            if (position >= from) {
                out.add(r.transition());
            }
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
                && closeId == b.closeId && index == b.index && encoding == b.encoding && java.util.Objects.equals(poolId, b.poolId)
                && java.util.Objects.equals(group, b.group) && java.util.Objects.equals(writerNames, b.writerNames)
                && Arrays.equals(records, b.records);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(timeNanos, orchestratorPid, poolId, closeId, group, index, writerNames, encoding)
                * 31 + Arrays.hashCode(records);
    }

    @Override
    public String toString() {
        return "MailboxTransitionBatch[timeNanos=" + timeNanos + ", orchestratorPid=" + orchestratorPid + ", poolId=" + poolId
                + ", closeId=" + closeId + ", group=" + group + ", index=" + index + ", writerNames=" + writerNames
                + ", encoding=" + encoding + ", transitions=" + size() + "]";
    }

    /**
     * Reads a batch's transitions in order without allocating: {@link #reset} it to a batch, then each {@link #next}
     * makes the next transition current ({@link #seq}, {@link #timeNanos}, {@link #origin} and its parts). Reusable;
     * not thread-safe.
     */
    public static final class Reader {
        private MailboxTransitionBatch batch;
        private byte[] a;
        private int encoding;
        private int p;
        private int left;
        private final Delta.State state = new Delta.State();
        private String[] names = new String[0];
        private String namesOf;

        /** Starts reading {@code b} from its first transition. */
        public Reader reset(MailboxTransitionBatch b) {
            batch = b;
            a = b.records;
            encoding = b.encoding;
            if (encoding == ENCODING_FIXED) {
                p = 0;
                left = a.length / RECORD_LENGTH;
            } else {
                state.clear();
                long count = Delta.varint(a, 0, state);
                p = state.end;
                left = (int) count;
            }
            return this;
        }

        /** Makes the next transition current; false after the last. */
        public boolean next() {
            if (left == 0) {
                return false;
            }
            left--;
            if (encoding == ENCODING_FIXED) {
                state.seq = FieldCursor.longAt(a, p);
                state.time = FieldCursor.longAt(a, p + 8);
                state.origin = FieldCursor.longAt(a, p + 16);
                p += RECORD_LENGTH;
            } else {
                p = Delta.read(a, p, state);
            }
            return true;
        }

        public long seq() {
            return state.seq;
        }

        public long timeNanos() {
            return state.time;
        }

        /** {@code from | to << 8 | writer << 16 | writerPid << 32}, as the ring record holds it. */
        public long origin() {
            return state.origin;
        }

        public int fromState() {
            return (int) (state.origin & 0xFF);
        }

        public int toState() {
            return (int) (state.origin >>> 8 & 0xFF);
        }

        public int writerCode() {
            return (int) (state.origin >>> 16 & 0xFF);
        }

        public int writerPid() {
            return (int) (state.origin >>> 32);
        }

        /** The writer's name from the batch's writerNames, {@code UNKNOWN(n)} for a code it does not name. */
        public String writer() {
            String w = batch.writerNames;
            if (w != namesOf) { // the same string for every batch of a journal read (StringCache): split once
                names = w == null || w.isEmpty() ? new String[0] : w.split(" ");
                namesOf = w;
            }
            int code = writerCode();
            return code < names.length ? names[code] : "UNKNOWN(" + code + ")";
        }

        /** The current transition as the event that would have said it alone. */
        public MailboxTransition transition() {
            return new MailboxTransition(state.time, batch.orchestratorPid, batch.poolId, batch.closeId, batch.group,
                    batch.index, state.seq, fromState(), toState(), writer(), writerPid());
        }
    }

    /**
     * {@link #ENCODING_DELTA}: a varint count, then per transition, against the one before (seq 0 and time 0 before the
     * first; the last pid of each writer code 1-3, 0 before its first):
     * <pre>
     *   a byte b >= 0x40: from = b & 7, to = b >> 3 & 7, writer = b >> 6 (1-3); seq = the last + 1; pid = the writer's last;
     *                     then varint zigzag(time - the last time)
     *   a byte f < 0x40:  flags (0x01 seq follows, 0x02 pid follows; no other bit); the origin's low 4 bytes (from, to,
     *                     writer, 0 in every record a runtime writes); varint zigzag(time - the last time);
     *                     [varint zigzag(seq - the last seq - 1)]; [varint pid (u32)]; no pid: the writer's last
     *                     (a writer code above 3 always carries its pid)
     * </pre>
     * Varints are unsigned LEB128 (7 bits a byte, low first, at most 10 bytes).
     */
    static final class Delta {
        static final int COMPACT_MIN = 0x40;
        static final int SEQ_FOLLOWS = 0x01;
        static final int PID_FOLLOWS = 0x02;
        /** The most bytes one transition takes: flags, origin, time, seq, pid. */
        static final int MAX_RECORD = 1 + 4 + 10 + 10 + 5;

        private Delta() {
        }

        /** Decoding state: the current transition, the last pid of each writer code 1-3 ([0] unused), where the last read ended. */
        static final class State {
            long seq;
            long time;
            long origin;
            int end;
            final int[] pids = new int[4];

            void clear() {
                seq = 0;
                time = 0;
                origin = 0;
                end = 0;
                java.util.Arrays.fill(pids, 0);
            }
        }

        /** The count of a well-formed delta records array (checked when its batch was made). */
        static int count(byte[] a) {
            long count = 0;
            for (int i = 0, shift = 0; ; i++, shift += 7) {
                count |= (long) (a[i] & 0x7F) << shift;
                if (a[i] >= 0) {
                    return (int) count;
                }
            }
        }

        /** Refuses records that do not decode whole (in plain words: which transition, what is wrong). */
        static void check(byte[] a) {
            State s = new State();
            try {
                long count = varint(a, 0, s); // a count the bytes cannot hold fails at their end, without a long walk
                int p = s.end;
                for (long i = 0; i < count; i++) {
                    try {
                        p = read(a, p, s);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("transition " + i + " of " + count + ": " + e.getMessage());
                    }
                }
                if (p != a.length) {
                    throw new IllegalArgumentException((a.length - p) + " bytes after the last of " + count + " transitions");
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("MailboxTransitionBatch records (" + a.length + " bytes, delta encoding) do not decode: "
                        + e.getMessage());
            }
        }

        /** Reads the transition at {@code p} into {@code s}; returns where the next one starts. */
        static int read(byte[] a, int p, State s) {
            if (p + 3 <= a.length) { // the common case inline: a compact byte and a time delta of 1 or 2 bytes
                int b = a[p] & 0xFF;
                int t0 = a[p + 1];
                if (b >= COMPACT_MIN && (t0 >= 0 || a[p + 2] >= 0)) {
                    int writer = b >>> 6;
                    long zt = t0 >= 0 ? t0 : (t0 & 0x7F) | a[p + 2] << 7;
                    s.seq++;
                    s.time += unzigzag(zt);
                    s.origin = (b & 7) | (b & 0x38) << 5 | (long) writer << 16 | (long) s.pids[writer] << 32;
                    return t0 >= 0 ? p + 2 : p + 3;
                }
            }
            return readAny(a, p, s);
        }

        private static int readAny(byte[] a, int p, State s) {
            int b = byteAt(a, p++);
            long low;
            int writer;
            int pid;
            if (b >= COMPACT_MIN) {
                writer = b >>> 6;
                low = (b & 7) | (b >>> 3 & 7) << 8 | (long) writer << 16;
                s.seq++;
                pid = s.pids[writer];
                s.time += unzigzag(varint(a, p, s));
                p = s.end;
            } else {
                if ((b & ~(SEQ_FOLLOWS | PID_FOLLOWS)) != 0) {
                    throw new IllegalArgumentException("flags 0x" + Integer.toHexString(b) + " at byte " + (p - 1));
                }
                if (p + 4 > a.length) {
                    throw new IllegalArgumentException("ends inside an origin at byte " + p);
                }
                low = FieldCursor.intAt(a, p) & 0xFFFF_FFFFL;
                p += 4;
                writer = (int) (low >>> 16 & 0xFF);
                s.time += unzigzag(varint(a, p, s));
                p = s.end;
                s.seq += 1;
                if ((b & SEQ_FOLLOWS) != 0) {
                    s.seq += unzigzag(varint(a, p, s));
                    p = s.end;
                }
                boolean named = writer >= 1 && writer <= 3;
                if ((b & PID_FOLLOWS) != 0) {
                    long v = varint(a, p, s);
                    p = s.end;
                    if (v >>> 32 != 0) {
                        throw new IllegalArgumentException("a pid of " + v + " (more than 32 bits)");
                    }
                    pid = (int) v;
                    if (named) {
                        s.pids[writer] = pid;
                    }
                } else if (named) {
                    pid = s.pids[writer];
                } else {
                    throw new IllegalArgumentException("writer code " + writer + " without its pid");
                }
            }
            s.origin = low | (long) pid << 32;
            return p;
        }

        /** The unsigned LEB128 varint at {@code p}; {@code s.end} is set to the byte after it. */
        static long varint(byte[] a, int p, State s) {
            long v = 0;
            for (int shift = 0; shift < 70; shift += 7) {
                int b = byteAt(a, p++);
                v |= (long) (b & 0x7F) << shift;
                if (b < 0x80) {
                    s.end = p;
                    return v;
                }
            }
            throw new IllegalArgumentException("a varint longer than 10 bytes at byte " + (p - 10));
        }

        private static int byteAt(byte[] a, int p) {
            if (p >= a.length) {
                throw new IllegalArgumentException("ends at byte " + a.length + " inside a transition");
            }
            return a[p] & 0xFF;
        }

        /** A signed value as an unsigned one, small magnitudes small: 0, -1, 1, -2 ... as 0, 1, 2, 3 ... */
        static long zigzag(long v) {
            return v << 1 ^ v >> 63;
        }

        static long unzigzag(long v) {
            return v >>> 1 ^ -(v & 1);
        }

        /** Writes {@code v} as a varint at {@code p}; returns the position after it. */
        static int putVarint(byte[] a, int p, long v) {
            while ((v & ~0x7FL) != 0) {
                a[p++] = (byte) (v | 0x80);
                v >>>= 7;
            }
            a[p++] = (byte) v;
            return p;
        }
    }

    /**
     * Packs transitions into a batch ({@link #ENCODING_DELTA}): {@link #add} them in order, then {@link #build} the
     * event (which empties the builder). Not thread-safe.
     */
    public static final class Builder {
        private byte[] records = new byte[256 * 4];
        private int length;
        private int count;
        private long firstTime;
        private long lastSeq;
        private long lastTime;
        /** The last pid of each writer code 1-3 ([0] unused). */
        private final int[] pids = new int[4];

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
            int p = length;
            byte[] a = records;
            if (p + Delta.MAX_RECORD > a.length) {
                records = a = Arrays.copyOf(a, a.length * 2);
            }
            if (count == 0) {
                firstTime = timeNanos;
            }
            int low = (int) origin;
            int writer = low >>> 16 & 0xFF;
            long time = Delta.zigzag(timeNanos - lastTime);
            if ((low & 0xFFFC_F8F8) == 0 && writer != 0 && seq == lastSeq + 1 && (int) (origin >>> 32) == pids[writer]) {
                a[p] = (byte) (low & 7 | (low >>> 5 & 0x38) | writer << 6);
                if ((time & ~0x7FL) == 0) { // unsigned: a delta of 2^62 or more zigzags to a negative long
                    a[p + 1] = (byte) time;
                    p += 2;
                } else if ((time & ~0x3FFFL) == 0) {
                    a[p + 1] = (byte) (time | 0x80);
                    a[p + 2] = (byte) (time >>> 7);
                    p += 3;
                } else {
                    p = Delta.putVarint(a, p + 1, time);
                }
            } else {
                p = escaped(a, p, seq, time, origin);
            }
            length = p;
            lastSeq = seq;
            lastTime = timeNanos;
            count++;
        }

        /** A transition the compact form cannot say: flags, the origin's low 4 bytes, time, [seq], [pid]. */
        private int escaped(byte[] a, int p, long seq, long time, long origin) {
            int low = (int) origin;
            int pid = (int) (origin >>> 32);
            int writer = low >>> 16 & 0xFF;
            boolean named = writer >= 1 && writer <= 3;
            boolean seqFollows = seq != lastSeq + 1;
            boolean pidFollows = !named || pid != pids[writer];
            a[p++] = (byte) ((seqFollows ? Delta.SEQ_FOLLOWS : 0) | (pidFollows ? Delta.PID_FOLLOWS : 0));
            a[p++] = (byte) low;
            a[p++] = (byte) (low >>> 8);
            a[p++] = (byte) (low >>> 16);
            a[p++] = (byte) (low >>> 24);
            p = Delta.putVarint(a, p, time);
            if (seqFollows) {
                p = Delta.putVarint(a, p, Delta.zigzag(seq - lastSeq - 1));
            }
            if (pidFollows) {
                p = Delta.putVarint(a, p, pid & 0xFFFF_FFFFL);
                if (named) {
                    pids[writer] = pid;
                }
            }
            return p;
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
            int headLength = (32 - Integer.numberOfLeadingZeros(count) + 6) / 7; // the varint count: 1 byte up to 127
            byte[] packed = new byte[headLength + length];
            Delta.putVarint(packed, 0, count);
            System.arraycopy(records, 0, packed, headLength, length);
            long time = firstTime;
            count = 0;
            length = 0;
            lastSeq = 0;
            lastTime = 0;
            Arrays.fill(pids, 0);
            return new MailboxTransitionBatch(time, orchestratorPid, poolId, closeId, group, index, writerNames, packed,
                    ENCODING_DELTA);
        }
    }
}
