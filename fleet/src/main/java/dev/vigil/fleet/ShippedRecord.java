package dev.vigil.fleet;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

import dev.vigil.journal.EventCodec;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JournalSchema;

import net.openhft.chronicle.bytes.Bytes;

/**
 * The one definition of a journal event as a Kafka record (its table: docs/FLEET.md, "Records"): key
 * {@code host|orchestratorPid|poolId}, value the event body as the journal stores it ({@link EventCodec}),
 * headers {@code vigil-format}, {@code vigil-schema}, {@code vigil-host}, {@code vigil-index}. The consumer
 * decodes the value with the same codec as a journal reader, so a schema it does not know is refused
 * the same way.
 *
 * <p>A shipper that reads damage in its journal ships one more record where the damage is: no event, an empty
 * value, and the header {@code vigil-damage} saying what the journal reader said ({@link #damage(String, String,
 * long, String)}). A replay of the topic then stops at it with that message, as a replay of the journal itself would:
 * the topic never reads as a shorter clean journal.
 *
 * @param damage null for an event; what the shipper's reader said for a damage record
 */
public record ShippedRecord(String host, long index, byte[] body, String damage) {
    public static final String FORMAT = "vigil-journal";
    static final String H_FORMAT = "vigil-format";
    static final String H_SCHEMA = "vigil-schema";
    static final String H_HOST = "vigil-host";
    static final String H_INDEX = "vigil-index";
    static final String H_DAMAGE = "vigil-damage";

    /** The record key of an event shipped from {@code host}. */
    public static String key(String host, JournalEvent e) {
        return host + "|" + e.orchestratorPid() + "|" + e.poolId();
    }

    /** Encodes one event for {@code topic}; {@code scratch} is reused between calls. */
    public static ProducerRecord<byte[], byte[]> encode(String topic, String host, long index, JournalEvent e,
            Bytes<?> scratch) {
        scratch.clear();
        EventCodec.write(e, scratch);
        byte[] value = scratch.toByteArray();
        return new ProducerRecord<>(topic, null, key(host, e).getBytes(StandardCharsets.UTF_8), value, headers(host, index));
    }

    /** The record that says {@code host}'s journal is damaged at {@code index} ({@code message}: the reader's words). */
    public static ProducerRecord<byte[], byte[]> damage(String topic, String host, long index, String message) {
        RecordHeaders headers = headers(host, index);
        headers.add(H_DAMAGE, message.getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(topic, null, (host + "|damage").getBytes(StandardCharsets.UTF_8), new byte[0], headers);
    }

    private static RecordHeaders headers(String host, long index) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(H_FORMAT, FORMAT.getBytes(StandardCharsets.UTF_8));
        headers.add(H_SCHEMA, Integer.toString(JournalSchema.VERSION).getBytes(StandardCharsets.UTF_8));
        headers.add(H_HOST, host.getBytes(StandardCharsets.UTF_8));
        headers.add(H_INDEX, Long.toString(index).getBytes(StandardCharsets.UTF_8));
        return headers;
    }

    /** Reads a consumed record; anything that is not a Vigil event record throws {@link FleetInputException}. */
    public static ShippedRecord decode(ConsumerRecord<byte[], byte[]> r) {
        String where = "topic=" + r.topic() + " partition=" + r.partition() + " offset=" + r.offset();
        String format = header(r, H_FORMAT);
        if (!FORMAT.equals(format)) {
            throw new FleetInputException(where + " is not a Vigil journal record (header " + H_FORMAT + "="
                    + (format == null ? "absent" : "'" + format + "'") + "); the topic holds records of something else");
        }
        String host = header(r, H_HOST);
        String index = header(r, H_INDEX);
        String schema = header(r, H_SCHEMA);
        if (host == null || index == null || schema == null || r.value() == null) {
            throw new FleetInputException(where + " is a Vigil record without " + (host == null ? H_HOST
                    : index == null ? H_INDEX : schema == null ? H_SCHEMA : "a value"));
        }
        try {
            if (Integer.parseInt(schema) > JournalSchema.VERSION) {
                throw new FleetInputException(where + " was shipped with journal schema version=" + schema
                        + ", newer than this reader's version=" + JournalSchema.VERSION);
            }
            return new ShippedRecord(host, Long.parseLong(index), r.value(), header(r, H_DAMAGE));
        } catch (NumberFormatException e) {
            throw new FleetInputException(where + " has a malformed header " + H_SCHEMA + "=" + schema + " or "
                    + H_INDEX + "=" + index);
        }
    }

    /**
     * The event, decoded only when the filter wants its kind (null otherwise). A damage record throws
     * {@link FleetInputException} with the shipper's reader's words: the host's journal cannot be read past it.
     */
    public JournalEvent event(JournalReader.TypeFilter filter) {
        if (damage != null) {
            throw new FleetInputException("host=" + host + ": its journal is damaged at index=0x" + Long.toHexString(index)
                    + " and its shipper shipped nothing past it: " + damage);
        }
        Bytes<byte[]> in = Bytes.wrapForRead(body);
        try {
            EventType type = EventType.byId(in.readUnsignedShort(in.readPosition() + EventCodec.TYPE_ID_OFFSET));
            if (type != null && !filter.wants(type)) {
                return null;
            }
            return EventCodec.read(in);   // an unknown kind gets the codec's own plain-words error
        } catch (RuntimeException e) {
            throw new FleetInputException("host=" + host + " index=0x" + Long.toHexString(index)
                    + ": the record's value is not a readable event: " + e.getMessage());
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
