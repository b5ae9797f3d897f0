package dev.vigil.journal;

import java.io.IOException;
import java.io.UncheckedIOException;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.util.NameTransformer;

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
     * journal index this way); see {@link #write(JsonGenerator, String, long, JournalEvent)}.
     */
    public static String toJson(String name, long value, JournalEvent event) {
        java.io.StringWriter text = new java.io.StringWriter(256);
        try (JsonGenerator gen = MAPPER.getFactory().createGenerator(text)) {
            write(gen, name, value, event);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return text.toString();
    }

    /**
     * Writes {@code {name: value, "event": KIND, fields...}} to {@code gen}: the extra field, then
     * exactly the event's own JSON form, its fields written by Jackson's serializer for the record
     * (unwrapped into this object, no tree built). A name the event already has is refused rather
     * than written twice.
     */
    public static void write(JsonGenerator gen, String name, long value, JournalEvent event) throws IOException {
        write(gen, name, value, null, 0, event);
    }

    /**
     * Like {@link #write(JsonGenerator, String, long, JournalEvent)} with a second field after the first, unless
     * {@code name2} is null (export: a packed transition's journal index, then its position in the batch).
     */
    public static void write(JsonGenerator gen, String name, long value, String name2, long value2, JournalEvent event)
            throws IOException {
        SerializerProvider provider = PROVIDER;
        JsonSerializer<Object> fields = UNWRAPPED.get(event.getClass());
        for (String added : new String[] {name, name2}) {
            if (added != null && hasField(event.getClass(), added)) {
                throw new IllegalArgumentException(event.type() + " already has a field " + added);
            }
        }
        gen.writeStartObject();
        gen.writeNumberField(name, value);
        if (name2 != null) {
            gen.writeNumberField(name2, value2);
        }
        gen.writeStringField(TYPE_PROPERTY, event.getClass().getSimpleName());
        fields.serialize(event, gen, provider);
        gen.writeEndObject();
    }

    /** The property that names the kind, as {@link JournalEvent}'s {@code @JsonTypeInfo} says. */
    private static final String TYPE_PROPERTY = JournalEvent.class.getAnnotation(
            com.fasterxml.jackson.annotation.JsonTypeInfo.class).property();
    private static final SerializerProvider PROVIDER = MAPPER.getSerializerProviderInstance();
    /** Per record class: Jackson's own serializer of its fields, without the braces around them. */
    private static final ClassValue<JsonSerializer<Object>> UNWRAPPED = new ClassValue<>() {
        @Override
        protected JsonSerializer<Object> computeValue(Class<?> type) {
            try {
                return PROVIDER.findValueSerializer(type).unwrappingSerializer(NameTransformer.NOP);
            } catch (JsonMappingException e) {
                throw new IllegalStateException("no JSON serializer for " + type.getSimpleName() + ": " + e.getMessage(), e);
            }
        }
    };

    /** Per record class: the names its JSON form has (the kind's property and the record components). */
    private static final ClassValue<java.util.Set<String>> FIELD_NAMES = new ClassValue<>() {
        @Override
        protected java.util.Set<String> computeValue(Class<?> type) {
            java.util.Set<String> names = new java.util.HashSet<>();
            names.add(TYPE_PROPERTY);
            for (java.lang.reflect.RecordComponent c : type.getRecordComponents()) {
                names.add(c.getName());
            }
            return names;
        }
    };

    private static boolean hasField(Class<?> type, String name) {
        return FIELD_NAMES.get(type).contains(name);
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
