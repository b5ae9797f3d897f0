package dev.vigil.mailbox;

/** Who wrote a state-word transition; the codes are stored in the state word and ring records and shared with C. */
public enum WriterRole {
    /** The orchestrator's control / task path. */
    PARENT(1),
    /** The child process (its serve loop). */
    CHILD(2),
    /** The terminating side (close); writes the state word only in legacy mode. */
    CLOSER(3);

    /**
     * The names of the codes 0 to the highest, space separated ({@code NONE PARENT CHILD CLOSER}): what a journaled
     * {@link dev.vigil.journal.MailboxTransitionBatch} carries as its writerNames.
     */
    public static final String CODE_NAMES;

    static {
        int max = 0;
        for (WriterRole role : values()) {
            max = Math.max(max, role.code);
        }
        java.util.StringJoiner names = new java.util.StringJoiner(" ");
        for (int code = 0; code <= max; code++) {
            names.add(nameOf(code));
        }
        CODE_NAMES = names.toString();
    }

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
