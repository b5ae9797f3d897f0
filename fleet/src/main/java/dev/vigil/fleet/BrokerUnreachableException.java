package dev.vigil.fleet;

/** The Kafka cluster did not answer within the bounded wait (every retry used); exit 1 for ship. */
public final class BrokerUnreachableException extends RuntimeException {
    public BrokerUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
