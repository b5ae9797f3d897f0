package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * docs/JOURNAL.md "Event kinds" is what a user of {@code vigil-replay export} reads the events by: it must list every
 * kind the journal writes, with its id and its fields after the common four (a field added in a later layout after
 * {@code ; vN:}), as the records declare them. Before, 7 of the 39 kinds were missing (ContainmentChosen,
 * HeartbeatSeen and CommandFailed among them, all in an ordinary run's export).
 */
class EventKindsTableTest {
    static final Path DOC = Path.of(System.getProperty("vigil.root", "..")).resolve("docs/JOURNAL.md");
    static final Pattern ROW = Pattern.compile("(?m)^\\| *(\\d+) \\| `(\\w+)` \\| ([^|]*?) \\| .* \\|$");

    /** The fields cell of {@code type}'s row: its components after the common four, grouped by the layout adding them. */
    static String fields(EventType type) {
        RecordComponent[] all = type.recordClass().getRecordComponents();
        Map<Integer, List<String>> byVersion = new TreeMap<>();
        for (int i = 4; i < all.length; i++) {
            AddedIn added = all[i].getAnnotation(AddedIn.class);
            byVersion.computeIfAbsent(added == null ? 1 : added.value(), v -> new ArrayList<>())
                    .add(all[i].getType().getSimpleName() + " " + all[i].getName());
        }
        StringBuilder s = new StringBuilder();
        byVersion.forEach((v, f) -> s.append(v == 1 ? "" : "; v" + v + ": ").append(String.join(", ", f)));
        return s.toString();
    }

    @Test
    void theEventKindsTableListsEveryKindWithItsIdAndFields() throws Exception {
        String doc = Files.readString(DOC);
        int from = doc.indexOf("### Event kinds");
        int to = doc.indexOf("\n### ", from + 1);
        assertTrue(from >= 0 && to > from, "docs/JOURNAL.md: no '### Event kinds' section");
        Map<String, String> documented = new TreeMap<>();
        Matcher row = ROW.matcher(doc.substring(from, to));
        while (row.find()) {
            documented.put(row.group(2), row.group(1) + " | " + row.group(3));
        }
        Map<String, String> expected = new TreeMap<>();
        for (EventType t : EventType.values()) {
            expected.put(t.recordClass().getSimpleName(), t.id() + " | " + fields(t));
        }
        StringBuilder missing = new StringBuilder();
        expected.forEach((name, cells) -> {
            if (!cells.equals(documented.get(name))) {
                missing.append("\n| ").append(cells.replaceFirst(" \\| ", " | `" + name + "` | ")).append(" | ... |  (docs: ")
                        .append(documented.get(name)).append(")");
            }
        });
        assertEquals("", missing.toString(), "docs/JOURNAL.md 'Event kinds' rows that differ from the records (expected row, then the doc's)");
        assertEquals(expected.keySet(), documented.keySet(), "docs/JOURNAL.md lists a kind the journal does not have");
    }
}
