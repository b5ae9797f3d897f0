package dev.vigil.replay.source;

import java.util.List;

/**
 * The journals of many hosts in one store (a Kafka topic): one {@link EventSource} per host, each
 * holding that host's events once, in journal-index order.
 */
public interface FleetSource extends AutoCloseable {
    /** What is read, for messages. */
    String describe();

    /** Every host with events, sorted. */
    List<String> hosts();

    /** One host's journal; a host without events gives an {@link dev.vigil.replay.ReplayInputException}. */
    EventSource host(String host);

    @Override
    void close();
}
