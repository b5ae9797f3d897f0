package dev.vigil.journal;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON form of events: one object per line, field names = record component names, the kind in
 * {@code "event"} (e.g. {@code "ChildReaped"}). Stable: fields are only ever added.
 */
public final class JsonEvents {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .disable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    private static final ObjectWriter WRITER = MAPPER.writerFor(JournalEvent.class);
    private static final ObjectReader READER = MAPPER.readerFor(JournalEvent.class);

    private JsonEvents() {
    }

    public static String toJson(JournalEvent event) {
        try {
            return WRITER.writeValueAsString(event);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The JSON form of {@code event} with one more field first, {@code name: value} (export adds the
     * journal index this way). Written through Jackson's tree model; a name the event already has is
     * refused rather than written twice.
     */
    public static String toJson(String name, long value, JournalEvent event) {
        ObjectNode fields = MAPPER.valueToTree(event);
        if (fields.has(name)) {
            throw new IllegalArgumentException(event.type() + " already has a field " + name);
        }
        ObjectNode line = MAPPER.createObjectNode();
        line.put(name, value);
        line.setAll(fields);
        try {
            return MAPPER.writeValueAsString(line);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static JournalEvent fromJson(String line) {
        try {
            return READER.readValue(line);
        } catch (IOException e) {
            throw new IllegalArgumentException("not a journal event JSON line: " + e.getMessage(), e);
        }
    }

    /** The shared mapper, for code that adds fields around an event (export adds the index). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
