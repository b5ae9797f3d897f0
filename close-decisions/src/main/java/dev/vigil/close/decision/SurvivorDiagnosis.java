package dev.vigil.close.decision;

import java.util.Locale;

/**
 * A survivor's class and the one-line evidence behind it, e.g.
 * {@code pid=4711 group=chips child=2 class=NOT_OBSERVED state=CONTROL_REQUEST shutdown=set ack=none heartbeat_age=3.2s proc=S wchan=futex_wait}.
 *
 * <p>Rules, first match wins: STOPPED (/proc T or t) > NOT_DELIVERED (shutdown not visible in the
 * mailbox) > NOT_OBSERVED (visible, never acknowledged) > WEDGED (acknowledged, no beat for a whole
 * window, or /proc D) > FINALIZING (acknowledged, beating). A plain executable has no mailbox: its
 * stop signal counts as delivered and never acknowledged, so it is STOPPED, WEDGED (D) or
 * NOT_OBSERVED with {@code state=SIGNALED_ONLY}.
 */
public record SurvivorDiagnosis(SurvivorClass survivorClass, String line) {

    public static SurvivorDiagnosis classify(SurvivorEvidence e) {
        SurvivorClass c = classOf(e);
        return new SurvivorDiagnosis(c, line(e, c));
    }

    static SurvivorClass classOf(SurvivorEvidence e) {
        char proc = e.proc().state();
        if (proc == 'T' || proc == 't') {
            return SurvivorClass.STOPPED;
        }
        MailboxWords w = e.words();
        if (w == null) {
            return proc == 'D' ? SurvivorClass.WEDGED : SurvivorClass.NOT_OBSERVED;
        }
        if (!w.shutdownVisible()) {
            return SurvivorClass.NOT_DELIVERED;
        }
        if (w.ackNanos() == 0) {
            return SurvivorClass.NOT_OBSERVED;
        }
        if (proc == 'D' || e.heartbeatAgeNanos() >= e.windowNanos()) {
            return SurvivorClass.WEDGED;
        }
        return SurvivorClass.FINALIZING;
    }

    private static String line(SurvivorEvidence e, SurvivorClass c) {
        StringBuilder sb = new StringBuilder(160);
        sb.append("pid=").append(e.pid()).append(" group=").append(e.group()).append(" child=").append(e.index())
                .append(" class=").append(c.name());
        MailboxWords w = e.words();
        if (w == null) {
            sb.append(" kind=").append(e.kind()).append(" state=SIGNALED_ONLY");
        } else {
            sb.append(" state=").append(w.stateName());
            if (w.legacy()) {
                // Legacy mode: SHUTDOWN lives in the state word, so "overwritten" names who erased it.
                sb.append(" shutdown=").append(w.shutdownVisible() ? "set" : "overwritten")
                        .append(" writer=").append(w.writerName()).append(" mode=legacy");
            } else {
                sb.append(" shutdown=").append(w.shutdownWord() != 0 ? "set" : "unset");
                if (c == SurvivorClass.NOT_DELIVERED) {
                    sb.append(" writer=").append(w.writerName());
                }
            }
            sb.append(" ack=").append(w.ackNanos() == 0 ? "none" : "set")
                    .append(" heartbeat_age=").append(seconds(e.heartbeatAgeNanos()));
        }
        sb.append(" proc=").append(e.proc().state()).append(" wchan=").append(e.proc().wchan());
        if (!e.proc().stack().isEmpty()) {
            sb.append(" stack=").append(String.join("<", e.proc().stack()));
        }
        if (w != null) {
            sb.append(" seq=").append(w.seq());
        }
        if (!e.lastEvents().isEmpty()) {
            sb.append(" last_events=[").append(String.join("; ", e.lastEvents())).append(']');
        }
        return sb.toString();
    }

    static String seconds(long nanos) {
        if (nanos < 0) {
            return "unknown";
        }
        return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
    }
}
