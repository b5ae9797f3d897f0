package dev.vigil.journal;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;

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
