package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import net.openhft.chronicle.bytes.Bytes;

@Timeout(60)
class EventRoundTripTest {

    @Test
    void everyEventKindHasAUniqueStableId() {
        Set<Integer> ids = new HashSet<>();
        for (EventType t : EventType.values()) {
            assertTrue(ids.add(t.id()), "duplicate id " + t.id());
            assertEquals(t, EventType.byId(t.id()));
        }
        assertEquals(EventType.values().length, ids.size());
    }

    @Test
    void everyEventKindRoundTripsThroughBinary() {
        for (JournalEvent e : SampleEvents.oneOfEach(7)) {
            Bytes<?> bytes = Bytes.allocateElasticOnHeap(256);
            EventCodec.write(e, bytes);
            JournalEvent back = EventCodec.read(bytes);
            assertEquals(e, back);
            assertEquals(0, bytes.readRemaining(), "trailing bytes after " + e.type());
        }
    }

    @Test
    void everyEventKindRoundTripsThroughJson() {
        for (JournalEvent e : SampleEvents.oneOfEach(11)) {
            String json = JsonEvents.toJson(e);
            assertTrue(json.contains("\"event\":\"" + e.getClass().getSimpleName() + "\""), json);
            assertTrue(!json.contains("\n"), "one line per event: " + json);
            assertEquals(e, JsonEvents.fromJson(json));
        }
    }

    @Test
    void anEventWithAFieldAddedInFrontIsItsOwnJsonFormAfterThatField() throws Exception {
        for (JournalEvent e : SampleEvents.oneOfEach(13)) {
            // the reference: the event's JSON tree, the field put in front (what export wrote before streaming)
            com.fasterxml.jackson.databind.node.ObjectNode line = JsonEvents.mapper().createObjectNode();
            line.put("journalIndex", 4711L);
            line.setAll((com.fasterxml.jackson.databind.node.ObjectNode) JsonEvents.mapper().valueToTree(e));
            assertEquals(JsonEvents.mapper().writeValueAsString(line), JsonEvents.toJson("journalIndex", 4711L, e),
                    e.type().toString());
        }
        IllegalArgumentException twice = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> JsonEvents.toJson("poolId", 1, SampleEvents.oneOfEach(1).get(0)));
        assertTrue(twice.getMessage().contains("already has a field poolId"), twice.getMessage());
    }

    @Test
    void jsonFieldNamesAreTheRecordComponentNames() {
        String json = JsonEvents.toJson(new ChildReaped(1, 2, "p", 3, "g", 0, 4711, 42, 0, 5));
        assertEquals("{\"event\":\"ChildReaped\",\"timeNanos\":1,\"orchestratorPid\":2,\"poolId\":\"p\",\"closeId\":3,"
                + "\"group\":\"g\",\"index\":0,\"pid\":4711,\"exitCode\":42,\"signal\":0,\"sinceBroadcastNanos\":5}", json);
    }

    @Test
    void everyEventKindRoundTripsThroughAJournalFile(@TempDir Path dir) {
        List<JournalEvent> written = new ArrayList<>();
        for (int seed = 0; seed < 3; seed++) {
            written.addAll(SampleEvents.oneOfEach(seed));
        }
        try (JournalWriter w = JournalWriter.open(dir)) {
            written.forEach(w::append);
        }
        List<JournalEvent> read = new ArrayList<>();
        List<Long> indexes = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> {
                indexes.add(i);
                return read.add(e);
            });
        }
        assertEquals(written, read);
        try (JournalReader r = JournalReader.open(dir)) {
            assertTrue(r.fromIndex(indexes.get(5)));
            assertEquals(written.get(5), r.next());
            assertNotEquals(null, r.next());
        }
    }
}
