package dev.vigil.mailbox;

/**
 * How the words of a mailbox are written. {@link #STICKY} is the protocol; {@link #LEGACY} exists only to
 * reproduce the lost-shutdown race of the upstream runner on demand (one shared state word, plain release
 * stores, SHUTDOWN written into the state word, CONTROL_DONE stored unconditionally).
 */
public enum ProtocolMode {
    /** Write-once shutdown word, every state transition a CAS from the word last read. */
    STICKY(0),
    /** Reproduction only: plain stores into one shared state word; a shutdown can be overwritten and lost. */
    LEGACY(1);

    private final int code;

    ProtocolMode(int code) {
        this.code = code;
    }

    /** The value stored at {@link MailboxDescriptor#PROTOCOL_MODE_OFFSET} and passed as VIGIL_PROTOCOL's numeric form. */
    public int code() {
        return code;
    }

    public static ProtocolMode ofCode(int code) {
        for (ProtocolMode mode : values()) {
            if (mode.code == code) {
                return mode;
            }
        }
        throw new MailboxException("unknown protocol mode: code=" + code);
    }

    /** Parses {@code sticky} / {@code legacy} (any case), as passed in VIGIL_PROTOCOL. */
    public static ProtocolMode parse(String text) {
        for (ProtocolMode mode : values()) {
            if (mode.name().equalsIgnoreCase(text.trim())) {
                return mode;
            }
        }
        throw new MailboxException("unknown protocol mode: protocol=" + text);
    }
}
