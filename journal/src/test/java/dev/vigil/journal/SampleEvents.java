package dev.vigil.journal;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;

/** One instance of every event kind with distinct, non-default field values. */
public final class SampleEvents {
    private SampleEvents() {
    }

    public static List<JournalEvent> oneOfEach(long seed) {
        List<JournalEvent> out = new ArrayList<>();
        for (EventType type : EventType.values()) {
            out.add(sample(type, seed));
        }
        return out;
    }

    /**
     * Transitions packed by {@link MailboxTransitionBatch.Builder}, 12 + (seed % 5) x 7 of them: a busy ring's
     * (seq + 1, the writers' own pids) and every escape (a seq gap and a repeat, a new pid, a writer code above 3, states
     * above 7, the origin's spare byte, time going back, a time 2^62 away).
     */
    static byte[] deltaRecords(long seed) {
        MailboxTransitionBatch.Builder b = new MailboxTransitionBatch.Builder();
        long seq = seed * 1_000_003L;
        long time = seed * 7_000_000_001L;
        int n = 12 + (int) (seed % 5) * 7;
        for (int i = 0; i < n; i++) {
            seq += i == 4 ? 9 : i == 5 ? 0 : 1;
            time += i == 6 ? -300 : i == 7 ? 1L << 62 : 150 + i;
            int writer = i == 8 ? 7 : 1 + i % 3;
            long origin = (i % 8) | (i == 9 ? 200 : (i + 1) % 8) << 8 | (long) writer << 16 | (i == 10 ? 0x5AL << 24 : 0)
                    | (i == 11 ? 0xFFFF_FFFEL : 4000 + seed + writer) << 32;
            b.addPacked(seq, time, origin);
        }
        return b.build(1, "p", 0, "g", 0, "").records();
    }

    /** Builds an event whose every field is derived from {@code seed} and the field's position. */
    public static JournalEvent sample(EventType type, long seed) {
        RecordComponent[] components = type.recordClass().getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] args = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            long v = seed * 31 + i * 7 + type.id();
            if (types[i] == long.class) {
                args[i] = v * 1_000_003L;
            } else if (types[i] == int.class) {
                args[i] = (int) v;
            } else if (types[i] == boolean.class) {
                args[i] = (v & 1) == 0;
            } else if (types[i] == byte[].class) {
                byte[] bytes = new byte[(int) (v % 3 + 1) * 24]; // whole packed records for the kinds that pack them
                for (int b = 0; b < bytes.length; b++) {
                    bytes[b] = (byte) (v * 13 + b * 7);
                }
                args[i] = bytes;
            } else {
                args[i] = components[i].getName() + "-" + v + (i % 3 == 0 ? " ünï \"q\"" : "");
            }
        }
        if (type == EventType.MAILBOX_TRANSITION_BATCH) { // its records must decode: packed by the builder, as written
            args[components.length - 2] = deltaRecords(seed);
            args[components.length - 1] = MailboxTransitionBatch.ENCODING_DELTA;
        }
        try {
            return type.recordClass().getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
