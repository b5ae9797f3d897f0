package dev.vigil.replay.source;

/**
 * Opens a {@link FleetSource}; found through {@link java.util.ServiceLoader}, so the replay tool
 * itself needs no Kafka client: the fleet module provides one ({@code bin/vigil-replay --kafka} puts
 * it on the class path).
 */
public interface FleetSourceProvider {
    /** Reads the whole topic as it stands; bad addresses, an unknown topic or foreign records throw. */
    FleetSource open(String bootstrap, String topic);
}
