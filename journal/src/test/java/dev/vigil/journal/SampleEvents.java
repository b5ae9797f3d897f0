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
        try {
            return type.recordClass().getDeclaredConstructor(types).newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
