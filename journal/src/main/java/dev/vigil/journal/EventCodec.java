package dev.vigil.journal;

import java.lang.reflect.RecordComponent;

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
 *   long: 8 bytes LE, int: 4 bytes LE, boolean: 1 byte, String: Chronicle stop-bit length + UTF-8,
 *   byte[]: stop-bit length + the bytes
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

    /**
     * The layout of each kind, by ordinal, made on the kind's first use: a short command meets a dozen of the kinds,
     * and each layout reads its record's components and their annotations by reflection. Every layout is still made,
     * and checked, by every build ({@link RecordReaders#main}).
     */
    private static final RecordLayout[] LAYOUTS = new RecordLayout[EventType.values().length];
    private static final ThreadLocal<EventEncoder> ENCODERS = ThreadLocal.withInitial(EventEncoder::new);

    private EventCodec() {
    }

    /** Writes {@code event} (header, checksum, fields) at {@code out}'s write position. */
    public static void write(JournalEvent event, BytesOut<?> out) {
        EventEncoder encoder = encoder();
        encoder.encode(event);
        encoder.writeTo(out);
    }

    /** This thread's encoder (what {@link #write} uses): its body is valid until the thread's next encode. */
    static EventEncoder encoder() {
        return ENCODERS.get();
    }

    /**
     * Makes every kind's layout and generated writer now, on the calling thread, and encodes an event of each kind
     * once (empty fields) into a scratch encoder: what a kind's first append would otherwise do on the appending thread
     * (reflection on the record and its annotations, a dynamic proxy, the writer's hidden class). An orchestrator calls
     * it when it opens: a thread that reads mapped memory (the close engine, the ring drainer, a pool's caller) may have
     * the fault of a cut map raised inside that work (MappedPathClasses). ~60 ms of CPU at load 30; a first non-ASCII
     * string (Chronicle's UTF-8 encoder, ~45 ms more) is left to its first event.
     */
    public static void prepareEveryKind() {
        EventEncoder scratch = new EventEncoder();
        for (EventType type : EventType.values()) {
            scratch.encode(emptyEvent(type));
        }
    }

    /** An event of {@code type} whose numbers are 0, booleans false, strings and byte arrays empty. */
    private static JournalEvent emptyEvent(EventType type) {
        RecordComponent[] components = type.recordClass().getRecordComponents();
        Class<?>[] types = new Class<?>[components.length];
        Object[] values = new Object[components.length];
        for (int i = 0; i < components.length; i++) {
            types[i] = components[i].getType();
            values[i] = types[i] == long.class ? (Object) 0L : types[i] == int.class ? (Object) 0
                    : types[i] == boolean.class ? (Object) false : types[i] == byte[].class ? new byte[0] : "";
        }
        try {
            return (JournalEvent) type.recordClass().getDeclaredConstructor(types).newInstance(values);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make an empty " + type.recordClass().getSimpleName(), e);
        }
    }

    /** Reads one whole body (any layout version this reader knows), checking its checksum. */
    public static JournalEvent read(BytesIn<?> in) {
        return new EventDecoder(true).read(in);
    }

    static RecordLayout layout(EventType type) {
        RecordLayout layout = LAYOUTS[type.ordinal()]; // racy: null (then the lock) or a whole layout (final fields)
        if (layout == null) {
            synchronized (LAYOUTS) {
                layout = LAYOUTS[type.ordinal()];
                if (layout == null) {
                    layout = RecordLayout.of(type.recordClass(), true);
                    LAYOUTS[type.ordinal()] = layout;
                }
            }
        }
        return layout;
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

    /** Field types and names, the version each field was added in, and the generated writer and readers of one record type. */
    static final class RecordLayout {
        final String kind;
        final int version;
        private final Class<?>[] fieldTypes;
        private final String[] fieldNames;
        private final int[] addedIn;
        private final Object[] absent;
        private final Class<?> recordClass;
        /** The generated writer (the newest layout), made on first use. */
        private volatile RecordWriters.Writer writer;
        /** The generated reader of each layout version, [0] for version 1, made on first use. */
        private final RecordReaders.Reader[] readers;
        /** True for the kinds of {@link EventType}: the build wrote their readers ({@link RecordReaders#main}). */
        private final boolean prebuilt;

        private RecordLayout(Class<?> recordClass, RecordComponent[] components, boolean prebuilt) {
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
                absent[i] = absentValue(fieldTypes[i], added == null ? "" : added.absent(), kind, fieldNames[i]);
            }
            this.recordClass = recordClass;
            this.readers = new RecordReaders.Reader[version];
            this.prebuilt = prebuilt;
        }

        /** The value of a field absent from an older layout; {@code kind} and {@code field} name it in an error (joined
         * there only: this runs for every field of a kind on its first use, and a string concatenation's first run spins
         * method-handle classes that JDK 17's class-data archive does not hold). */
        private static Object absentValue(Class<?> type, String text, String kind, String fieldName) {
            try {
                if (type == long.class) {
                    return text.isEmpty() ? 0L : Long.parseLong(text);
                } else if (type == int.class) {
                    return text.isEmpty() ? 0 : Integer.parseInt(text);
                } else if (type == boolean.class) {
                    return !text.isEmpty() && Boolean.parseBoolean(text);
                } else if (type == byte[].class) {
                    if (!text.isEmpty()) {
                        throw new IllegalStateException(kind + "." + fieldName + ": @AddedIn absent of a byte[] field is always empty");
                    }
                    return new byte[0];
                }
                return text;
            } catch (NumberFormatException e) {
                throw new IllegalStateException(kind + "." + fieldName + ": @AddedIn absent=\"" + text + "\" is not a " + type, e);
            }
        }

        static RecordLayout of(Class<?> recordClass) {
            return of(recordClass, false);
        }

        /** @param prebuilt true for a kind of {@link EventType}, whose readers the build wrote */
        static RecordLayout of(Class<?> recordClass, boolean prebuilt) {
            RecordComponent[] components = recordClass.getRecordComponents();
            for (RecordComponent c : components) {
                Class<?> type = c.getType();
                if (type != long.class && type != int.class && type != boolean.class && type != String.class
                        && type != byte[].class) {
                    throw new IllegalStateException(recordClass.getSimpleName() + "." + c.getName()
                            + ": unsupported field type " + type);
                }
            }
            return new RecordLayout(recordClass, components, prebuilt);
        }

        /** Writes every field (the newest layout) into {@code sink}. */
        void write(Object event, FieldSink sink) {
            RecordWriters.Writer w = writer;
            if (w == null) {
                synchronized (this) {
                    w = writer;
                    if (w == null) {
                        w = RecordWriters.generate(recordClass, fieldTypes, fieldNames);
                        writer = w;
                    }
                }
            }
            w.write(event, sink);
        }

        /** Writes every field (the newest layout) at {@code out}'s write position. */
        void write(Object event, BytesOut<?> out) {
            FieldSink sink = new FieldSink(64);
            write(event, sink);
            out.write(sink.array(), 0, sink.position());
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

        /** The class {@code simpleName} reading layout {@code bodyVersion}, as the build writes it. */
        org.objectweb.asm.ClassWriter readerClass(String simpleName, int bodyVersion) {
            return RecordReaders.classFile(simpleName, recordClass, fieldTypes, fieldNames, addedIn, absent, bodyVersion);
        }

        /** The reader of layout {@code bodyVersion} this layout uses (made once, whether by the build or at run time). */
        Object readerUsed(int bodyVersion) {
            return reader(bodyVersion);
        }

        private RecordReaders.Reader reader(int bodyVersion) {
            RecordReaders.Reader r = readers[bodyVersion - 1];
            if (r == null) {
                synchronized (this) {
                    r = readers[bodyVersion - 1];
                    if (r == null && prebuilt) {
                        r = RecordReaders.prebuilt(recordClass, bodyVersion);
                    }
                    if (r == null) {
                        r = RecordReaders.generate(recordClass, fieldTypes, fieldNames, addedIn, absent, bodyVersion);
                    }
                    readers[bodyVersion - 1] = r; // racy reads see null (and lock) or a whole reader: it is immutable
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
