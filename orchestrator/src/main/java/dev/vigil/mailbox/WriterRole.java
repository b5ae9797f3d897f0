package dev.vigil.mailbox;

/** Who wrote a state-word transition; the codes are stored in the state word and ring records and shared with C. */
public enum WriterRole {
    /** The orchestrator's control / task path. */
    PARENT(1),
    /** The child process (its serve loop). */
    CHILD(2),
    /** The terminating side (close); writes the state word only in legacy mode. */
    CLOSER(3);

    private final int code;

    WriterRole(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static WriterRole ofCode(int code) {
        for (WriterRole role : values()) {
            if (role.code == code) {
                return role;
            }
        }
        throw new MailboxException("unknown writer role: code=" + code);
    }

    /** The name of a role code, or {@code NONE} for 0 (a fresh mailbox) and {@code UNKNOWN(n)} otherwise. */
    public static String nameOf(int code) {
        for (WriterRole role : values()) {
            if (role.code == code) {
                return role.name();
            }
        }
        return code == 0 ? "NONE" : "UNKNOWN(" + code + ")";
    }
}
