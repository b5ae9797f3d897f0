package dev.vigil.journal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesOut;

/**
 * The binary form of an event inside one Chronicle Queue excerpt (schema 2):
 * <pre>
 *   0               2               4                               8
 *   +---------------+---------------+-------------------------------+------------------------
 *   | type id (u16) | layout word   | CRC32C (u32)                  | fields ...
 *   +---------------+---------------+-------------------------------+------------------------
 *   layout word: bit 15 = checksummed (always set since schema 2), bits 0-14 = the kind's layout version
 *   CRC32C: over bytes 0-3 and 8 to the end of the body
 *   fields: the record components in declaration order that the layout version has (see AddedIn);
 *   long: 8 bytes LE, int: 4 bytes LE, boolean: 1 byte, String: Chronicle stop-bit length + UTF-8
 * </pre>
 * Schema 1 bodies (written before the checksum) are {@code u16 type id | u16 1 | fields}: layout
 * version 1 without the checksum bit and without the CRC word. {@link EventEncoder} writes,
 * {@link EventDecoder} reads; the layouts are built once per kind from the record components.
 */
public final class EventCodec {
    public static final int TYPE_ID_OFFSET = 0;
    public static final int LAYOUT_WORD_OFFSET = TYPE_ID_OFFSET + 2;
    public static final int CHECKSUM_OFFSET = LAYOUT_WORD_OFFSET + 2;
    public static final int FIELDS_OFFSET = CHECKSUM_OFFSET + 4;
    /** Where the fields of a schema 1 body start: it has no CRC word. */
    public static final int SCHEMA1_FIELDS_OFFSET = CHECKSUM_OFFSET;
    /** Bit of the layout word set on every checksummed body. */
    public static final int CHECKSUMMED_BIT = 0x8000;
    public static final int LAYOUT_VERSION_MASK = 0x7FFF;

    private static final Map<EventType, RecordLayout> LAYOUTS = new EnumMap<>(EventType.class);
    private static final ThreadLocal<EventEncoder> ENCODERS = ThreadLocal.withInitial(EventEncoder::new);

    static {
        for (EventType type : EventType.values()) {
            LAYOUTS.put(type, RecordLayout.of(type.recordClass()));
        }
    }

    private EventCodec() {
    }

    /** Writes {@code event} (header, checksum, fields) at {@code out}'s write position. */
    public static void write(JournalEvent event, BytesOut<?> out) {
        EventEncoder encoder = ENCODERS.get();
        encoder.encode(event);
        encoder.writeTo(out);
    }

    /** Reads one whole body (any layout version this reader knows), checking its checksum. */
    public static JournalEvent read(BytesIn<?> in) {
        return new EventDecoder(true).read(in);
    }

    static RecordLayout layout(EventType type) {
        return LAYOUTS.get(type);
    }

    /** The newest layout version of a kind: the highest {@link AddedIn} among its fields, 1 without any. */
    static int layoutVersionOf(Class<?> recordClass) {
        int version = 1;
        for (RecordComponent c : recordClass.getRecordComponents()) {
            AddedIn added = c.getAnnotation(AddedIn.class);
            if (added != null) {
                version = Math.max(version, added.value());
            }
        }
        return version;
    }

    /** An excerpt is not an event this reader can decode; the message says why, in plain words. */
    public static class UnreadableEventException extends RuntimeException {
        UnreadableEventException(String message) {
            super(message);
        }
    }

    /** The header names a kind or a layout version this reader does not know (a newer Vigil wrote it). */
    public static final class UnsupportedSchemaException extends UnreadableEventException {
        UnsupportedSchemaException(String message) {
            super(message);
        }
    }

    /** A string and, when it is all ASCII, its bytes (= its UTF-8 form); null bytes otherwise. */
    private static final class EncodedString {
        final String string;
        final byte[] ascii;

        EncodedString(String string) {
            this.string = string;
            byte[] utf8 = string.getBytes(StandardCharsets.UTF_8);
            this.ascii = utf8.length == string.length() ? utf8 : null;
        }
    }

    /** Field accessors, the version each field was added in, and the generated readers of one record type. */
    static final class RecordLayout {
        /** Longer strings (report JSON, command lines) are rarely repeated: written directly. */
        private static final int MAX_CACHED_CHARS = 128;

        final String kind;
        final int version;
        private final Class<?>[] fieldTypes;
        private final String[] fieldNames;
        private final int[] addedIn;
        private final Object[] absent;
        private final MethodHandle[] getters;
        private final Class<?> recordClass;
        /** The generated reader of each layout version, [0] for version 1, made on first use. */
        private final RecordReaders.Reader[] readers;
        private final EncodedString[] lastStrings;

        private RecordLayout(Class<?> recordClass, RecordComponent[] components, MethodHandle[] getters) {
            this.kind = recordClass.getSimpleName();
            this.version = layoutVersionOf(recordClass);
            int n = components.length;
            this.fieldTypes = new Class<?>[n];
            this.fieldNames = new String[n];
            this.addedIn = new int[n];
            this.absent = new Object[n];
            for (int i = 0; i < n; i++) {
                fieldTypes[i] = components[i].getType();
                fieldNames[i] = components[i].getName();
                AddedIn added = components[i].getAnnotation(AddedIn.class);
                addedIn[i] = added == null ? 1 : added.value();
                if (added != null && added.value() < 2) {
                    throw new IllegalStateException(kind + "." + fieldNames[i] + ": @AddedIn(" + added.value()
                            + ") must name version 2 or later (version 1 is a kind's first layout)");
                }
                absent[i] = absentValue(fieldTypes[i], added == null ? "" : added.absent(), kind + "." + fieldNames[i]);
            }
            this.getters = getters;
            this.recordClass = recordClass;
            this.readers = new RecordReaders.Reader[version];
            this.lastStrings = new EncodedString[n];
        }

        private static Object absentValue(Class<?> type, String text, String field) {
            try {
                if (type == long.class) {
                    return text.isEmpty() ? 0L : Long.parseLong(text);
                } else if (type == int.class) {
                    return text.isEmpty() ? 0 : Integer.parseInt(text);
                } else if (type == boolean.class) {
                    return !text.isEmpty() && Boolean.parseBoolean(text);
                }
                return text;
            } catch (NumberFormatException e) {
                throw new IllegalStateException(field + ": @AddedIn absent=\"" + text + "\" is not a " + type, e);
            }
        }

        static RecordLayout of(Class<?> recordClass) {
            RecordComponent[] components = recordClass.getRecordComponents();
            Class<?>[] types = new Class<?>[components.length];
            MethodHandle[] getters = new MethodHandle[components.length];
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            try {
                for (int i = 0; i < components.length; i++) {
                    types[i] = components[i].getType();
                    if (types[i] != long.class && types[i] != int.class && types[i] != boolean.class
                            && types[i] != String.class) {
                        throw new IllegalStateException(recordClass.getSimpleName() + "." + components[i].getName()
                                + ": unsupported field type " + types[i]);
                    }
                    getters[i] = lookup.unreflect(components[i].getAccessor())
                            .asType(MethodType.methodType(types[i], Object.class));
                }
                return new RecordLayout(recordClass, components, getters);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Writes every field (the newest layout). */
        void write(Object event, BytesOut<?> out) {
            try {
                for (int i = 0; i < getters.length; i++) {
                    Class<?> t = fieldTypes[i];
                    if (t == long.class) {
                        out.writeLong((long) getters[i].invokeExact(event));
                    } else if (t == int.class) {
                        out.writeInt((int) getters[i].invokeExact(event));
                    } else if (t == boolean.class) {
                        out.writeBoolean((boolean) getters[i].invokeExact(event));
                    } else {
                        writeString(i, (String) getters[i].invokeExact(event), out);
                    }
                }
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /**
         * Same bytes as {@code out.writeUtf8(s)} (stop-bit length, then UTF-8), but an ASCII string
         * is copied in one go, and the bytes of the last string seen in each field are kept for
         * the next event that passes the same instance (pool ids, group names): Chronicle's
         * writeUtf8 appends one char at a time, which stood out in the appender thread's profile.
         */
        private void writeString(int field, String value, BytesOut<?> out) {
            String s = value == null ? "" : value;
            if (s.length() > MAX_CACHED_CHARS) {
                out.writeUtf8(s);
                return;
            }
            EncodedString last = lastStrings[field];
            if (last == null || last.string != s) {
                last = new EncodedString(s);
                lastStrings[field] = last; // racy by design: an EncodedString is immutable
            }
            if (last.ascii == null) {
                out.writeUtf8(s);
            } else {
                out.writeStopBit(last.ascii.length);
                out.write(last.ascii);
            }
        }

        /**
         * Reads the fields that layout {@code bodyVersion} has from {@code cursor} (the others get their absent
         * value) and builds the record; bytes left after the last field are an error.
         */
        Object read(FieldCursor cursor, int bodyVersion) {
            Object event = reader(bodyVersion).read(cursor);
            if (cursor.remaining() != 0) {
                throw new UnreadableEventException(kind + " layout version=" + bodyVersion + " has "
                        + cursor.remaining() + " bytes after its last field");
            }
            return event;
        }

        /** Like {@link #read(FieldCursor, int)} over the bytes from {@code in}'s read position to its limit. */
        Object read(BytesIn<?> in, int bodyVersion) {
            Bytes<byte[]> copy = Bytes.wrapForRead(in.toByteArray());
            FieldCursor cursor = new FieldCursor();
            cursor.reset(copy, 0, (int) copy.readLimit(), kind);
            return read(cursor, bodyVersion);
        }

        private RecordReaders.Reader reader(int bodyVersion) {
            RecordReaders.Reader r = readers[bodyVersion - 1];
            if (r == null) {
                synchronized (this) {
                    r = readers[bodyVersion - 1];
                    if (r == null) {
                        r = RecordReaders.generate(recordClass, fieldTypes, fieldNames, addedIn, absent, bodyVersion);
                        readers[bodyVersion - 1] = r; // racy reads see null (and lock) or a whole reader: it is immutable
                    }
                }
            }
            return r;
        }
    }

    /** A heap buffer the encoder and decoder reuse. */
    static Bytes<byte[]> heapBuffer(int capacity) {
        return Bytes.allocateElasticOnHeap(capacity);
    }
}
