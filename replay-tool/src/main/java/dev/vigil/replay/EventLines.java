package dev.vigil.replay;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransitionBatch;

/**
 * One readable line per event (per transition of a batch), as {@code tail} prints them:
 * {@code 1234.567890123 MailboxTransition pool=p1 close=0 group=chips index=2 seq=17 fromState=CONTROL_REQUEST ...}.
 * Time is CLOCK_MONOTONIC seconds; state numbers are shown by name; text with spaces is quoted.
 */
public final class EventLines {
    private static final int COMMON_FIELDS = 4; // timeNanos, orchestratorPid, poolId, closeId
    private static final Map<EventType, RecordComponent[]> COMPONENTS = new EnumMap<>(EventType.class);

    static {
        for (EventType t : EventType.values()) {
            COMPONENTS.put(t, t.recordClass().getRecordComponents());
        }
    }

    private EventLines() {
    }

    /** The lines of one event: one, or one per transition of a {@link MailboxTransitionBatch}. */
    public static List<String> format(JournalEvent e) {
        if (e instanceof MailboxTransitionBatch batch) {
            List<String> lines = new ArrayList<>(batch.size());
            batch.transitions().forEach(t -> lines.add(line(t)));
            return lines;
        }
        return List.of(line(e));
    }

    private static String line(JournalEvent e) {
        StringBuilder sb = new StringBuilder(128);
        long t = e.timeNanos();
        sb.append(String.format(ReplayText.NUMBERS, "%d.%09d", t / 1_000_000_000L, Math.abs(t % 1_000_000_000L)))
                .append(' ').append(e.getClass().getSimpleName())
                .append(" pool=").append(e.poolId())
                .append(" close=").append(e.closeId());
        RecordComponent[] components = COMPONENTS.get(e.type());
        for (int i = COMMON_FIELDS; i < components.length; i++) {
            RecordComponent c = components[i];
            Object value;
            try {
                value = c.getAccessor().invoke(e);
            } catch (ReflectiveOperationException ex) {
                throw new IllegalStateException("event=" + e.type() + " field=" + c.getName() + " unreadable", ex);
            }
            sb.append(' ').append(c.getName()).append('=').append(render(c.getName(), value));
        }
        return sb.toString();
    }

    private static String render(String field, Object value) {
        if (value instanceof Integer n && (field.equals("fromState") || field.equals("toState")
                || field.equals("lastState"))) {
            return MailboxStates.name(n);
        }
        String s = String.valueOf(value);
        if (s.isEmpty() || s.indexOf(' ') >= 0 || s.indexOf('"') >= 0) {
            return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + '"';
        }
        return s;
    }
}
