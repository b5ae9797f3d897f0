package dev.vigil.journal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;

import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesOut;

/**
 * The binary form of an event inside one Chronicle Queue excerpt:
 * <pre>
 *   u16 type id | u16 schema version | record components in declaration order
 *   long: 8 bytes LE, int: 4 bytes LE, boolean: 1 byte, String: Chronicle stop-bit length + UTF-8
 * </pre>
 * The layout follows the record declarations, so an event gains a field only with a
 * {@link JournalSchema#VERSION} bump. Codecs are built once per kind from the record components.
 */
public final class EventCodec {
    private static final Map<EventType, RecordLayout> LAYOUTS = new EnumMap<>(EventType.class);

    static {
        for (EventType type : EventType.values()) {
            LAYOUTS.put(type, RecordLayout.of(type.recordClass()));
        }
    }

    private EventCodec() {
    }

    /** Writes the header and every field of {@code event}. */
    public static void write(JournalEvent event, BytesOut<?> out) {
        EventType type = event.type();
        out.writeUnsignedShort(type.id());
        out.writeUnsignedShort(JournalSchema.VERSION);
        LAYOUTS.get(type).write(event, out);
    }

    /** Reads the header only; the cursor is left on the first field. */
    public static EventType readHeader(BytesIn<?> in) {
        if (in.readRemaining() < 4) {
            throw new IllegalStateException("excerpt too short for an event header: " + in.readRemaining() + " bytes");
        }
        int typeId = in.readUnsignedShort();
        int schema = in.readUnsignedShort();
        if (schema > JournalSchema.VERSION) {
            throw new UnsupportedSchemaException("event schema version=" + schema
                    + " is newer than this reader's version=" + JournalSchema.VERSION + " (type id=" + typeId + ")");
        }
        EventType type = EventType.byId(typeId);
        if (type == null) {
            throw new UnsupportedSchemaException("unknown event type id=" + typeId + " (schema version=" + schema
                    + "; written by a newer Vigil, or not an event)");
        }
        return type;
    }

    /** Reads the fields of an event whose header {@link #readHeader} just returned. */
    public static JournalEvent readBody(EventType type, BytesIn<?> in) {
        return LAYOUTS.get(type).read(in);
    }

    public static JournalEvent read(BytesIn<?> in) {
        return readBody(readHeader(in), in);
    }

    /** The header names a type or schema this reader does not know. */
    public static final class UnsupportedSchemaException extends RuntimeException {
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

    /** Field accessors and the canonical constructor of one record type. */
    private static final class RecordLayout {
        /** Longer strings (report JSON, command lines) are rarely repeated: written directly. */
        private static final int MAX_CACHED_CHARS = 128;

        private final Class<?>[] fieldTypes;
        private final MethodHandle[] getters;
        private final MethodHandle constructor;
        private final EncodedString[] lastStrings;

        private RecordLayout(Class<?>[] fieldTypes, MethodHandle[] getters, MethodHandle constructor) {
            this.fieldTypes = fieldTypes;
            this.getters = getters;
            this.constructor = constructor;
            this.lastStrings = new EncodedString[fieldTypes.length];
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
                MethodHandle ctor = lookup.findConstructor(recordClass, MethodType.methodType(void.class, types));
                return new RecordLayout(types, getters,
                        ctor.asSpreader(Object[].class, types.length).asType(MethodType.methodType(Object.class, Object[].class)));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

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

        JournalEvent read(BytesIn<?> in) {
            Object[] args = new Object[fieldTypes.length];
            for (int i = 0; i < fieldTypes.length; i++) {
                Class<?> t = fieldTypes[i];
                if (t == long.class) {
                    requireRemaining(in, 8);
                    args[i] = in.readLong();
                } else if (t == int.class) {
                    requireRemaining(in, 4);
                    args[i] = in.readInt();
                } else if (t == boolean.class) {
                    requireRemaining(in, 1);
                    args[i] = in.readBoolean();
                } else {
                    requireRemaining(in, 1);
                    args[i] = in.readUtf8();
                    if (args[i] == null) {
                        throw new IllegalStateException("missing string field " + i);
                    }
                }
            }
            try {
                return (JournalEvent) (Object) constructor.invokeExact(args);
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        private static void requireRemaining(BytesIn<?> in, int n) {
            if (in.readRemaining() < n) {
                throw new IllegalStateException("excerpt ends inside a field: " + in.readRemaining() + " bytes left, need " + n);
            }
        }
    }
}
