package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import net.openhft.chronicle.bytes.Bytes;

/** The binary form, byte for byte: the codec's fast paths write exactly what the layout promises. */
@Timeout(30)
class EventCodecFormatTest {

    @Test
    void stringsAreWrittenExactlyAsChroniclesWriteUtf8WhateverTheirCharacters() {
        String shared = "pool-shared";
        List<String> values = List.of("", "ascii", "ünï \"q\"", "x".repeat(300), "emoji \uD83D\uDE00", shared, shared,
                new String(shared.toCharArray()), "ascii");
        for (String pool : values) {
            MailboxTransition e = new MailboxTransition(1L, 2, pool, 3L, "g", 4, 5L, 6, 7, pool, 8);
            assertArrayEquals(reference(e), encode(e), "poolId=" + pool);
            assertEquals(e, EventCodec.read(Bytes.wrapForRead(encode(e))));
        }
    }

    @Test
    void aNullStringIsWrittenAsEmpty() {
        MailboxTransition e = new MailboxTransition(1L, 2, null, 3L, null, 4, 5L, 6, 7, null, 8);
        MailboxTransition back = (MailboxTransition) EventCodec.read(Bytes.wrapForRead(encode(e)));
        assertEquals("", back.poolId());
        assertEquals("", back.group());
    }

    private static byte[] encode(JournalEvent e) {
        Bytes<?> b = Bytes.allocateElasticOnHeap(64);
        EventCodec.write(e, b);
        return b.toByteArray();
    }

    /** The layout of EventCodec's javadoc, written out by hand for one kind. */
    private static byte[] reference(MailboxTransition e) {
        Bytes<?> b = Bytes.allocateElasticOnHeap(64);
        b.writeUnsignedShort(EventType.MAILBOX_TRANSITION.id());
        b.writeUnsignedShort(0x8000 | 1);
        b.writeInt(0); // the CRC32C, filled in below
        b.writeLong(e.timeNanos());
        b.writeInt(e.orchestratorPid());
        b.writeUtf8(e.poolId());
        b.writeLong(e.closeId());
        b.writeUtf8(e.group());
        b.writeInt(e.index());
        b.writeLong(e.seq());
        b.writeInt(e.fromState());
        b.writeInt(e.toState());
        b.writeUtf8(e.writer());
        b.writeInt(e.writerPid());
        byte[] body = b.toByteArray();
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body, 0, 4);
        crc.update(body, 8, body.length - 8);
        java.nio.ByteBuffer.wrap(body).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(4, (int) crc.getValue());
        return body;
    }
}
