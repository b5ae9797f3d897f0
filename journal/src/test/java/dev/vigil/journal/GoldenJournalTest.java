package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Journals written by earlier builds (src/test/resources/golden/, one directory per layout they
 * were written with, made by {@link GoldenJournalWriter}) are read by this build: every event, every
 * field it was written with equal to what was written, fields added since at their absent value;
 * where the golden has a {@code transitions.jsonl}, its packed batches stand for exactly those transitions.
 * Never regenerate an existing golden journal; add a new one when a layout changes.
 */
@Timeout(60)
class GoldenJournalTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"schema1", "schema2", "schema2-exit-decisions", "schema2-transition-batch",
            "schema2-transition-batch-delta"})
    void aJournalWrittenByAnEarlierBuildReadsEventForEvent(String golden) throws IOException {
        Path source = Path.of("src/test/resources/golden", golden);
        Path journal = tmp.resolve("journal");
        copyTree(source.resolve("journal"), journal);
        List<String> expected = Files.readAllLines(source.resolve("events.jsonl"));
        List<JournalEvent> read = new ArrayList<>();
        try (JournalReader r = JournalReader.open(journal)) {
            r.fromStart().readAll((i, e) -> read.add(e));
        }
        assertEquals(expected.size(), read.size(), "events read from " + source);
        for (int i = 0; i < expected.size(); i++) {
            JsonNode want = JsonEvents.mapper().readTree(expected.get(i));
            JsonNode got = JsonEvents.mapper().readTree(JsonEvents.toJson(read.get(i)));
            for (Map.Entry<String, JsonNode> f : want.properties()) {
                assertNotNull(got.get(f.getKey()), "event " + i + " lost field " + f.getKey() + ": " + got);
                assertEquals(f.getValue(), got.get(f.getKey()), "event " + i + " field " + f.getKey());
            }
        }
        assertTrue(read.stream().map(JournalEvent::type).distinct().count() >= 19, "every kind of the core schema");
        Path transitions = source.resolve("transitions.jsonl");
        if (Files.exists(transitions)) {
            List<String> want = Files.readAllLines(transitions);
            List<String> got = read.stream().flatMap(e -> MailboxTransitionBatch.expand(e).stream()).map(JsonEvents::toJson).toList();
            assertEquals(want.size(), got.size(), "transitions of " + source);
            for (int i = 0; i < want.size(); i++) {
                assertEquals(JsonEvents.mapper().readTree(want.get(i)), JsonEvents.mapper().readTree(got.get(i)), "transition " + i);
            }
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }
}
