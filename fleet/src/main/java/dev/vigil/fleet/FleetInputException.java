package dev.vigil.fleet;

/** Input the fleet commands cannot use (an unknown topic, records of something else, bad options); exit 2. */
public final class FleetInputException extends RuntimeException {
    public FleetInputException(String message) {
        super(message);
    }

    public FleetInputException(String message, Throwable cause) {
        super(message, cause);
    }
}
