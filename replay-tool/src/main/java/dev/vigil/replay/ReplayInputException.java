package dev.vigil.replay;

/** The input cannot answer the question (an unknown close id, a file of the wrong kind); exit code 2. */
public final class ReplayInputException extends RuntimeException {
    public ReplayInputException(String message) {
        super(message);
    }
}
