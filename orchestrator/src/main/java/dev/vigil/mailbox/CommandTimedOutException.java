package dev.vigil.mailbox;

/**
 * The parent stopped waiting for a control command or task. The command stays in the mailbox: when the
 * child completes it later, the next operation on the handle collects that late result first.
 */
public class CommandTimedOutException extends MailboxException {
    private static final long serialVersionUID = 1L;

    private final long commandId;
    private final int lastState;

    public CommandTimedOutException(String message, long commandId, int lastState) {
        super(message);
        this.commandId = commandId;
        this.lastState = lastState;
    }

    public long commandId() {
        return commandId;
    }

    /** The state the parent last read before it gave up. */
    public int lastState() {
        return lastState;
    }
}
