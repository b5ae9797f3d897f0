package dev.vigil.mailbox;

/** What a child returned for one control command or task; {@code errorCode} 0 means success. */
public record CommandResult(long commandId, long value, int errorCode, String errorText, long elapsedNanos) {
    public boolean succeeded() {
        return errorCode == 0;
    }
}
