package dev.vigil.journal;

import java.util.zip.CRC32C;

import net.openhft.chronicle.bytes.BytesOut;

/**
 * Encodes events into a reused byte array in the layout of {@link EventCodec}, checksum included: the kind's
 * generated writer ({@link RecordWriters}) stores each field straight into the array. Not thread-safe: one per
 * writing thread.
 */
public final class EventEncoder {
    private final FieldSink sink = new FieldSink(512);
    private final CRC32C crc = new CRC32C();

    /** Encodes {@code event}; the body is then {@link #array()}[0, {@link #length()}). */
    public void encode(JournalEvent event) {
        EventType type = event.type();
        EventCodec.RecordLayout layout = EventCodec.layout(type);
        sink.clear();
        sink.writeShort(type.id());
        sink.writeShort(EventCodec.CHECKSUMMED_BIT | layout.version);
        FieldSink.writeInt(sink, 0);
        layout.write(event, sink);
        byte[] body = sink.array();
        int length = sink.position();
        crc.reset();
        crc.update(body, 0, EventCodec.CHECKSUM_OFFSET);
        crc.update(body, EventCodec.FIELDS_OFFSET, length - EventCodec.FIELDS_OFFSET);
        sink.putInt(EventCodec.CHECKSUM_OFFSET, (int) crc.getValue());
    }

    /** The encoded body starts at index 0 of this array (which may change with the next encode). */
    public byte[] array() {
        return sink.array();
    }

    public int length() {
        return sink.position();
    }

    /** Copies the encoded body to {@code out}. */
    public void writeTo(BytesOut<?> out) {
        out.write(array(), 0, length());
    }
}
