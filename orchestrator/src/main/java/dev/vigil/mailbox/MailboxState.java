package dev.vigil.mailbox;

/** The states of a mailbox state word ({@link dev.vigil.journal.MailboxStateCodes}, their one place), with names. */
public final class MailboxState implements dev.vigil.journal.MailboxStateCodes {
    private MailboxState() {
    }

    /** The name of a state, or {@code UNKNOWN(n)}. */
    public static String name(int state) {
        String name = dev.vigil.journal.MailboxStateCodes.nameOf(state);
        return name != null ? name : "UNKNOWN(" + state + ")";
    }

    /** The number of a state name; fails with name=value context. */
    public static int valueOf(String name) {
        for (int i = IDLE; i <= INIT_FAILED; i++) {
            if (name(i).equals(name)) {
                return i;
            }
        }
        throw new MailboxException("unknown mailbox state: name=" + name);
    }
}
