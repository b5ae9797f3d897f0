package dev.vigil.close.decision;

/** What close does with children that outlived the reap budget. */
public enum EscalationPolicy {
    /** Report and keep them (as the upstream pool runner did): no signal, mailbox kept, retry later. */
    LEAK,
    /** SIGTERM to the child's process group, wait the grace period, then SIGKILL through its pidfd. */
    TERM_THEN_KILL;

    /** Parses {@code leak} / {@code term-then-kill} (any case, '-' or '_'). */
    public static EscalationPolicy parse(String text) {
        String norm = text.trim().toUpperCase(java.util.Locale.ROOT).replace('-', '_');
        try {
            return valueOf(norm);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("escalation=" + text + " is not one of leak, term-then-kill", e);
        }
    }

    /** The lower-case, dashed name used in settings and the journal. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
