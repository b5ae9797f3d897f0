package dev.vigil.fleet;

import dev.vigil.replay.source.FleetSource;
import dev.vigil.replay.source.FleetSourceProvider;

/** Registered in META-INF/services: {@code vigil-replay --kafka} reads a topic through this. */
public final class KafkaFleetSourceProvider implements FleetSourceProvider {
    @Override
    public FleetSource open(String bootstrap, String topic) {
        return KafkaFleetSource.read(bootstrap, topic);
    }
}
