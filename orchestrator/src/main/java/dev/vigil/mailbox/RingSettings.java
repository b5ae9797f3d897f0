package dev.vigil.mailbox;

import java.time.Duration;
import java.util.function.Function;

/**
 * How the transition rings of an orchestrator's mailboxes behave (docs/MAILBOX.md, "Flow control").
 *
 * @param capacity    records per ring, a power of two in [{@value MailboxDescriptor#MIN_RING_CAPACITY},
 *                    {@value MailboxDescriptor#MAX_RING_CAPACITY}] (system property {@value #CAPACITY_PROPERTY})
 * @param writerWait  how long a writer that would lap the drainer waits before it laps (and the record it
 *                    overwrites is journaled as lost); written into every mailbox ({@value #WAIT_PROPERTY}, millis)
 * @param flowControl whether the drainer publishes its position and turns flow control on; {@code false} is the
 *                    pre-flow-control ring that laps whenever the drainer is slow, kept to show what flow control
 *                    prevents ({@value #FLOW_CONTROL_PROPERTY})
 */
public record RingSettings(int capacity, Duration writerWait, boolean flowControl) {
    public static final String CAPACITY_PROPERTY = "vigil.ring.capacity";
    public static final String WAIT_PROPERTY = "vigil.ring.writerWaitMillis";
    public static final String FLOW_CONTROL_PROPERTY = "vigil.ring.flowControl";

    public RingSettings {
        MailboxDescriptor.checkRingCapacity(capacity);
        if (writerWait.isNegative()) {
            throw new MailboxException("ring writer wait must not be negative: writerWait=" + writerWait);
        }
    }

    public static RingSettings defaults() {
        return new RingSettings(MailboxDescriptor.DEFAULT_RING_CAPACITY, Duration.ofNanos(MailboxDescriptor.DEFAULT_RING_WAIT_NANOS), true);
    }

    /** Settings from properties (e.g. {@code System::getProperty}); absent ones keep their defaults. */
    public static RingSettings from(Function<String, String> properties) {
        RingSettings d = defaults();
        String capacity = properties.apply(CAPACITY_PROPERTY);
        String wait = properties.apply(WAIT_PROPERTY);
        String flow = properties.apply(FLOW_CONTROL_PROPERTY);
        try {
            return new RingSettings(capacity == null ? d.capacity() : Integer.parseInt(capacity.trim()),
                    wait == null ? d.writerWait() : Duration.ofMillis(Long.parseLong(wait.trim())),
                    flow == null ? d.flowControl() : Boolean.parseBoolean(flow.trim()));
        } catch (NumberFormatException e) {
            throw new MailboxException("ring setting is not a number: " + CAPACITY_PROPERTY + "=" + capacity + " " + WAIT_PROPERTY + "=" + wait, e);
        }
    }

    public RingSettings withCapacity(int ringCapacity) {
        return new RingSettings(ringCapacity, writerWait, flowControl);
    }

    public RingSettings withWriterWait(Duration wait) {
        return new RingSettings(capacity, wait, flowControl);
    }

    public RingSettings withFlowControl(boolean on) {
        return new RingSettings(capacity, writerWait, on);
    }

    public int mailboxLength() {
        return MailboxDescriptor.mailboxLength(capacity);
    }
}
