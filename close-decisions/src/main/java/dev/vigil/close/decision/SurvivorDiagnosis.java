package dev.vigil.close.decision;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A survivor's class and the one-line evidence behind it, e.g.
 * {@code pid=4711 group=chips child=2 class=STUCK_IN_HANDLER state=CONTROL_REQUEST shutdown=set ack=none heartbeat_age=3.2s op=3 command=17 in_handler=20.1s proc=S wchan=futex_wait}.
 *
 * <p>Rules, first match wins: STOPPED (/proc T or t) > DETACHED (past INIT_READY, its mailbox file no longer in its
 * /proc maps: unmapped, or an exec) > GARBLED (a state or writer no writer writes: its words were written over) >
 * NOT_DELIVERED (shutdown not visible in the
 * mailbox) > STUCK_IN_HANDLER (visible, never acknowledged, inside a handler: the state word says
 * TASK_READY / CONTROL_REQUEST, or, in legacy mode where SHUTDOWN replaced that state, a command is
 * still open) > NOT_OBSERVED (visible, never acknowledged, idle: it ignores shutdown) > WEDGED
 * (acknowledged, no beat for a whole window, or /proc D) > FINALIZING (acknowledged, beating). A plain
 * executable has no mailbox: its stop signal counts as delivered and never acknowledged, so it is
 * STOPPED, WEDGED (D) or NOT_OBSERVED with {@code state=SIGNALED_ONLY}.
 */
public record SurvivorDiagnosis(SurvivorClass survivorClass, String line) {
    /** The evidence's {@code state=} of a plain executable: no mailbox, its stop signal was its shutdown. */
    static final String SIGNALED_ONLY = "SIGNALED_ONLY";

    public static SurvivorDiagnosis classify(SurvivorEvidence e) {
        SurvivorClass c = classOf(e);
        return new SurvivorDiagnosis(c, line(e, c));
    }

    /** A child whose exit status someone else took: {@code why} is the reap's own line (pid, errno). */
    public static SurvivorDiagnosis exitStatusLost(String group, int index, int pid, String why) {
        return new SurvivorDiagnosis(SurvivorClass.EXIT_STATUS_LOST, "pid=" + pid + " group=" + group + " child=" + index
                + " class=" + SurvivorClass.EXIT_STATUS_LOST.name() + " " + why);
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
        if (Boolean.FALSE.equals(e.proc().mapsMailbox()) && !(w.state() == 0 && w.seq() == 0)) {
            return SurvivorClass.DETACHED;
        }
        if (w.stateName().startsWith("UNKNOWN(") || w.writerName().startsWith("UNKNOWN(")) {
            return SurvivorClass.GARBLED;
        }
        if (!w.shutdownVisible()) {
            return SurvivorClass.NOT_DELIVERED;
        }
        if (w.ackNanos() == 0) {
            boolean inHandler = w.insideHandler() || (w.legacy() && e.handler() != null);
            return inHandler ? SurvivorClass.STUCK_IN_HANDLER : SurvivorClass.NOT_OBSERVED;
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
            sb.append(" kind=").append(e.kind()).append(" state=").append(SIGNALED_ONLY);
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
        SurvivorEvidence.OpenCommand h = e.handler();
        if (h != null) {
            // The open command: for a child still inside its handler, how long it has run there; otherwise (e.g. the
            // legacy CONTROL_DONE that erased SHUTDOWN) only which command it was: the child has left the handler.
            sb.append(" op=").append(h.opcode()).append(" command=").append(h.commandId());
            if (c == SurvivorClass.STUCK_IN_HANDLER) {
                sb.append(" in_handler=").append(seconds(h.runningNanos()));
            }
        }
        sb.append(" proc=").append(e.proc().state()).append(" wchan=").append(e.proc().wchan());
        if (Boolean.FALSE.equals(e.proc().mapsMailbox())) {
            sb.append(" mailbox=unmapped exe=").append(e.proc().exe() == null ? "?" : e.proc().exe());
        }
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

    /**
     * The cause in one line, made exact from the evidence line where the class's fixed text would be wrong: a
     * {@link SurvivorClass#NOT_OBSERVED} plain executable has no loop (it outlived its stop signal), nor has a child that
     * never reached its loop (IDLE at seq 0); every other case is {@link SurvivorClass#cause()}.
     */
    public static String cause(SurvivorClass c, String evidenceLine) {
        if (c != SurvivorClass.NOT_OBSERVED) {
            return c.cause();
        }
        Map<String, String> ev = evidence(evidenceLine);
        if (signaledOnly(ev)) {
            return "stop signal delivered but it did not exit: a plain executable (no mailbox, no loop) that ignores,"
                    + " handles or outlives its stop signal";
        }
        if (neverReachedItsLoop(ev)) {
            return "shutdown delivered but never seen: the child never reached its loop (its runtime never reported"
                    + " INIT_READY)";
        }
        return c.cause();
    }

    /**
     * By its {@link #evidence}: a fresh mailbox (IDLE at seq 0), whose child never reported INIT_READY, so it never ran
     * the loop it would be said to idle in.
     */
    public static boolean neverReachedItsLoop(Map<String, String> ev) {
        return "IDLE".equals(ev.get("state")) && "0".equals(ev.get("seq"));
    }

    /** By its {@link #evidence}: a plain executable (no mailbox), whose shutdown was its stop signal only. */
    public static boolean signaledOnly(Map<String, String> ev) {
        return SIGNALED_ONLY.equals(ev.get("state"));
    }

    /**
     * The next step for a person, made concrete from the evidence line of the diagnosis (the same text live and in the
     * replay), e.g. {@code handler op 3 (command 17) has run 20.1s without a heartbeat: poll cancellation in it, or
     * raise the window above its longest run}. The window is not in the line: whether a handler still beats is
     * judged from its heartbeat age against the 1 s a serving loop never exceeds.
     */
    public static String nextStep(SurvivorClass c, String evidenceLine) {
        Map<String, String> ev = evidence(evidenceLine);
        String proc = ev.containsKey("proc") ? "proc=" + ev.get("proc") + " wchan=" + ev.getOrDefault("wchan", "?") : "";
        switch (c) {
            case STUCK_IN_HANDLER: {
                String op = ev.containsKey("op") ? "handler op " + ev.get("op") + " (command " + ev.get("command")
                        + ") has run " + ev.get("in_handler") : "its handler (" + ev.getOrDefault("state", "?") + ") has run";
                boolean beats = ev.containsKey("heartbeat_age") && parseSeconds(ev.get("heartbeat_age")) < 1.0;
                return op + (beats ? " (beating, never polling cancellation)" : " without a heartbeat")
                        + ("D".equals(ev.get("proc")) ? ", blocked in the kernel at " + ev.get("wchan") : "")
                        + ": poll cancellation in it, or raise the window above its longest run";
            }
            case NOT_OBSERVED:
                if (neverReachedItsLoop(ev) && "unmapped".equals(ev.get("mailbox"))) {
                    return "it never mapped its mailbox and runs " + ev.getOrDefault("exe", "?") + " (" + proc + "): a "
                            + "program that does not attach to the mailbox (no child runtime) is a plain executable, kind"
                            + " exec (ChildSpec.exec), closed by its stop signal; or it is still starting: read its stderr";
                }
                if (neverReachedItsLoop(ev)) {
                    return "it never reached its loop (IDLE at seq 0: no INIT_READY, " + proc + "): still starting, or"
                            + " blocked before its runtime attached (a close right after a start, as a start's rollback,"
                            + " meets such children): read its stacks and its stderr";
                }
                return signaledOnly(ev)
                        ? "the plain executable outlived its stop signal (" + proc + "): make it exit on that signal, "
                                + "or give it one it exits on (stopSignal in a spec, withStopSignal in Java); "
                                + "term-then-kill ends it"
                        : "idle in its loop (" + ev.getOrDefault("state", "?") + ", last beat " + ev.get("heartbeat_age")
                                + " before the diagnosis) yet it never acknowledged: " + c.nextStep();
            case WEDGED:
                return "acknowledged, then silent for " + ev.getOrDefault("heartbeat_age", "?") + " (" + proc + "): "
                        + c.nextStep();
            case FINALIZING:
                return "acknowledged and beating (last beat " + ev.getOrDefault("heartbeat_age", "?") + " ago): "
                        + c.nextStep();
            case STOPPED:
                return "stopped (" + proc + "): " + c.nextStep();
            case DETACHED:
                return "it maps no part of its mailbox file now and runs " + ev.getOrDefault("exe", "?") + " (" + proc
                        + "): " + c.nextStep();
            default:
                return c.nextStep();
        }
    }

    /** key=value pairs of an evidence line ({@code last_events=[...]} and {@code stack=} included as raw text). */
    public static Map<String, String> evidence(String line) {
        Map<String, String> m = new HashMap<>();
        if (line != null) {
            for (String token : line.split("\\s+")) {
                int eq = token.indexOf('=');
                if (eq > 0 && !m.containsKey(token.substring(0, eq))) {
                    m.put(token.substring(0, eq), token.substring(eq + 1));
                }
            }
        }
        return m;
    }

    private static double parseSeconds(String s) {
        try {
            return Double.parseDouble(s.endsWith("s") ? s.substring(0, s.length() - 1) : s);
        } catch (NumberFormatException e) {
            return Double.MAX_VALUE;
        }
    }

    static String seconds(long nanos) {
        if (nanos < 0) {
            return "unknown";
        }
        return String.format(Locale.ROOT, "%.1fs", nanos / 1e9);
    }
}
