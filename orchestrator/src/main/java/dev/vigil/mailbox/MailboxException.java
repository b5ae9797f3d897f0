package dev.vigil.mailbox;

/** A mailbox could not be created, attached or driven; the message carries key=value context. */
public class MailboxException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MailboxException(String message) {
        super(message);
    }

    public MailboxException(String message, Throwable cause) {
        super(message, cause);
    }
}
