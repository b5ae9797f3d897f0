package dev.vigil.journal;

import java.util.zip.CRC32C;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesOut;

/**
 * Encodes events into a reused heap buffer in the layout of {@link EventCodec}, checksum included.
 * Not thread-safe: one per writing thread.
 */
public final class EventEncoder {
    private final Bytes<byte[]> buffer = EventCodec.heapBuffer(512);
    private final CRC32C crc = new CRC32C();

    /** Encodes {@code event}; the body is then {@link #array()}[0, {@link #length()}). */
    public void encode(JournalEvent event) {
        EventType type = event.type();
        EventCodec.RecordLayout layout = EventCodec.layout(type);
        buffer.clear();
        buffer.writeUnsignedShort(type.id());
        buffer.writeUnsignedShort(EventCodec.CHECKSUMMED_BIT | layout.version);
        buffer.writeInt(0);
        layout.write(event, buffer);
        byte[] body = array();
        int length = length();
        crc.reset();
        crc.update(body, 0, EventCodec.CHECKSUM_OFFSET);
        crc.update(body, EventCodec.FIELDS_OFFSET, length - EventCodec.FIELDS_OFFSET);
        buffer.writeInt(EventCodec.CHECKSUM_OFFSET, (int) crc.getValue());
    }

    /** The encoded body starts at index 0 of this array (which may change with the next encode). */
    public byte[] array() {
        return buffer.underlyingObject();
    }

    public int length() {
        return (int) buffer.writePosition();
    }

    /** Copies the encoded body to {@code out}. */
    public void writeTo(BytesOut<?> out) {
        out.write(array(), 0, length());
    }
}
