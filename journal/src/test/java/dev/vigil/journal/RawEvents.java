package dev.vigil.journal;

import java.util.zip.CRC32C;

import net.openhft.chronicle.bytes.Bytes;

/** Hand-made event bodies, as a newer (or broken) writer would make them: any type id, version and payload. */
public final class RawEvents {
    private RawEvents() {
    }

    /** A checksummed body: {@code typeId | CHECKSUMMED_BIT | version | CRC32C | payload}. */
    public static byte[] checksummed(int typeId, int version, byte[] payload) {
        Bytes<byte[]> b = Bytes.allocateElasticOnHeap(64);
        b.writeUnsignedShort(typeId);
        b.writeUnsignedShort(EventCodec.CHECKSUMMED_BIT | version);
        b.writeInt(0);
        b.write(payload);
        byte[] body = b.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(body, 0, EventCodec.CHECKSUM_OFFSET);
        crc.update(body, EventCodec.FIELDS_OFFSET, body.length - EventCodec.FIELDS_OFFSET);
        int c = (int) crc.getValue();
        for (int i = 0; i < 4; i++) {
            body[EventCodec.CHECKSUM_OFFSET + i] = (byte) (c >>> (8 * i));
        }
        return body;
    }

    /** The payload a newer kind might carry: a long and a string. */
    public static byte[] somePayload() {
        Bytes<byte[]> b = Bytes.allocateElasticOnHeap(64);
        b.writeLong(42);
        b.writeUtf8("a field this reader cannot know");
        return b.toByteArray();
    }
}
