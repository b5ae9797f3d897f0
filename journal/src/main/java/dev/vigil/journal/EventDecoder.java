package dev.vigil.journal;

import java.util.zip.CRC32C;

import net.openhft.chronicle.bytes.BytesIn;

/**
 * Reads event bodies of every layout version this build knows: copies the body into a reused heap
 * buffer, checks the envelope and the CRC32C, then decodes the fields on demand. Not thread-safe:
 * one per reader. Problems are {@link EventCodec.UnreadableEventException}s in plain words (the
 * reader adds the file and index).
 */
public final class EventDecoder {
    /** A plain array, so that a reader that never meets a string beyond ASCII never initialises Chronicle. */
    private byte[] body = new byte[512];
    private final CRC32C crc = new CRC32C();
    private final FieldCursor cursor = new FieldCursor();
    private boolean schema1Allowed;
    private int length;
    private int version;
    private int fieldsOffset;

    /**
     * @param schema1Allowed whether unchecksummed schema 1 bodies may appear: true for a journal
     *                       whose marker says schema 1 (it may have been continued by a newer
     *                       writer), false for a journal created at schema 2 or later, where a body
     *                       without the checksum bit is damage. Either way, once a checksummed body
     *                       has been read, a schema 1 body after it is damage.
     */
    public EventDecoder(boolean schema1Allowed) {
        this.schema1Allowed = schema1Allowed;
    }

    /**
     * Copies the body at {@code in}'s read position (to its read limit), checks its header and
     * checksum, and returns its kind. The fields are then read by {@link #readBody}.
     */
    public EventType readHeader(BytesIn<?> in) {
        long remaining = in.readRemaining();
        checkLength(remaining);
        length = (int) remaining;
        byte[] array = body(length);
        int copied = 0;
        while (copied < length) {
            int n = in.read(array, copied, length - copied);
            if (n <= 0) {
                throw new EventCodec.UnreadableEventException("the excerpt ended after " + copied + " of " + length + " bytes");
            }
            copied += n;
        }
        return checkHeader();
    }

    /** Like {@link #readHeader(BytesIn)} for the body at {@code src}'s {@code [offset, offset + bodyLength)}. */
    EventType readHeader(byte[] src, int offset, int bodyLength) {
        checkLength(bodyLength);
        length = bodyLength;
        System.arraycopy(src, offset, body(length), 0, length);
        return checkHeader();
    }

    private static void checkLength(long remaining) {
        if (remaining < EventCodec.SCHEMA1_FIELDS_OFFSET) {
            throw new EventCodec.UnreadableEventException("the excerpt is " + remaining
                    + " bytes long, too short for an event header");
        }
        if (remaining > Integer.MAX_VALUE - 16) {
            throw new EventCodec.UnreadableEventException("the excerpt is " + remaining + " bytes long");
        }
    }

    private byte[] body(int capacity) {
        if (body.length < capacity) {
            body = new byte[Math.max(capacity, body.length * 2)];
        }
        return body;
    }

    private EventType checkHeader() {
        byte[] array = body;
        int typeId = unsignedShortAt(array, EventCodec.TYPE_ID_OFFSET);
        int word = unsignedShortAt(array, EventCodec.LAYOUT_WORD_OFFSET);
        EventType type = EventType.byId(typeId);
        if ((word & EventCodec.CHECKSUMMED_BIT) == 0) {
            if (word != 1) {
                throw new EventCodec.UnreadableEventException("the event header has type id=" + typeId
                        + " and layout word=0x" + Integer.toHexString(word)
                        + ", neither a checksummed body nor a schema 1 body (a damaged header)");
            }
            if (!schema1Allowed) {
                throw new EventCodec.UnreadableEventException("the event (type id=" + typeId
                        + ") has no checksum, but it follows checksummed events or the journal was created at schema "
                        + JournalSchema.VERSION + " (a damaged header)");
            }
            if (type == null) {
                throw unknownType(typeId, 1);
            }
            version = 1;
            fieldsOffset = EventCodec.SCHEMA1_FIELDS_OFFSET;
            return type;
        }
        if (length < EventCodec.FIELDS_OFFSET) {
            throw new EventCodec.UnreadableEventException("the excerpt is " + length
                    + " bytes long, too short for a checksummed event header");
        }
        crc.reset();
        crc.update(array, 0, EventCodec.CHECKSUM_OFFSET);
        crc.update(array, EventCodec.FIELDS_OFFSET, length - EventCodec.FIELDS_OFFSET);
        int computed = (int) crc.getValue();
        int stored = FieldCursor.intAt(array, EventCodec.CHECKSUM_OFFSET);
        if (computed != stored) {
            throw new EventCodec.UnreadableEventException("the event's bytes do not match its checksum (CRC32C stored=0x"
                    + Integer.toHexString(stored) + ", computed=0x" + Integer.toHexString(computed) + ", "
                    + length + " bytes, type id=" + typeId + "): the event was changed after it was written");
        }
        schema1Allowed = false;
        version = word & EventCodec.LAYOUT_VERSION_MASK;
        if (type == null) {
            throw unknownType(typeId, version);
        }
        int known = EventCodec.layout(type).version;
        if (version > known || version < 1) {
            throw new EventCodec.UnsupportedSchemaException(type.recordClass().getSimpleName() + " (type id=" + typeId
                    + ") has layout version=" + version + "; this reader knows versions 1.." + known
                    + (version > known ? " (written by a newer Vigil)" : ""));
        }
        fieldsOffset = EventCodec.FIELDS_OFFSET;
        return type;
    }

    private static int unsignedShortAt(byte[] a, int p) {
        return (a[p] & 0xFF) | (a[p + 1] & 0xFF) << 8;
    }

    private static EventCodec.UnsupportedSchemaException unknownType(int typeId, int version) {
        return new EventCodec.UnsupportedSchemaException("unknown event type id=" + typeId + " (layout version="
                + version + "; written by a newer Vigil, or not an event)");
    }

    /** Decodes the fields of the body whose header {@link #readHeader} just checked. */
    public JournalEvent readBody(EventType type) {
        EventCodec.RecordLayout layout = EventCodec.layout(type);
        cursor.reset(body, fieldsOffset, length, layout.kind);
        try {
            return (JournalEvent) layout.read(cursor, version);
        } catch (EventCodec.UnreadableEventException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new EventCodec.UnreadableEventException(type.recordClass().getSimpleName()
                    + " body does not decode (" + e.getMessage() + ")");
        }
    }

    /** The layout version of the body last read by {@link #readHeader}. */
    public int layoutVersion() {
        return version;
    }

    public JournalEvent read(BytesIn<?> in) {
        return readBody(readHeader(in));
    }
}
