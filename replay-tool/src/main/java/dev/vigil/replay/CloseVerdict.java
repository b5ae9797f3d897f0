package dev.vigil.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.vigil.close.decision.SurvivorClass;
import dev.vigil.close.decision.SurvivorDiagnosis;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.ShutdownPublished;

/**
 * The one-line verdict on a close that names the cause of its failure, e.g.
 * {@code SHUTDOWN overwritten by child pid 4711 CONTROL_DONE at seq 17} or
 * {@code pid 4712 acked at +0.200 s, still finalizing at +60.000 s}. Times are relative to the
 * close's start.
 */
public final class CloseVerdict {
    private CloseVerdict() {
    }

    /** Longer lists are cut in show's summary lines (each child still has its own block below them). */
    static final int LISTED = 10;

    /**
     * {@code items} joined with ", ", at most {@link #LISTED} of them and how many more: a crashed close of 300 children
     * made each of show's first three lines list all 300 (10-20 KB a line).
     */
    static String some(List<String> items) {
        return items.size() <= LISTED ? String.join(", ", items)
                : String.join(", ", items.subList(0, LISTED)) + " and " + (items.size() - LISTED) + " more";
    }

    /**
     * {@link #failureClasses} for show's "classes:" line: as they are up to {@link #LISTED}, else per class in order of
     * first appearance, {@code CLASS x N (pid, pid, ...)}.
     */
    static String classesLine(List<String> classes) {
        if (classes.size() <= LISTED) {
            return String.join(", ", classes);
        }
        Map<String, List<String>> byClass = new java.util.LinkedHashMap<>();
        for (String pidAndClass : classes) {
            int space = pidAndClass.indexOf(' ');
            byClass.computeIfAbsent(pidAndClass.substring(space + 1), k -> new ArrayList<>()).add(pidAndClass.substring(0, space));
        }
        List<String> out = new ArrayList<>();
        byClass.forEach((cls, pids) -> out.add(cls + " x" + pids.size() + " (" + some(pids) + ")"));
        return String.join(", ", out);
    }

    /** The children of a close its orchestrator's death ended that were never reaped ({@code group/index pid N}). */
    static List<String> unreapedAtDeath(RebuiltClose rc) {
        List<String> out = new ArrayList<>();
        for (ChildHistory c : rc.children()) {
            if (rc.endedByDeath() != null && c.reaped() == null) {
                out.add(c.key().group() + "/" + c.key().index() + " pid " + c.pid());
            }
        }
        return out;
    }

    public static String of(RebuiltClose rc) {
        long t0 = rc.started().timeNanos();
        List<String> causes = new ArrayList<>();
        List<String> leftByDeath = new ArrayList<>(); // nothing known of them but that the death left them unreaped
        for (ChildHistory c : rc.children()) {
            if (c.outcome().failsTheClose()) {
                if (rc.endedByDeath() != null && c.reaped() == null && c.diagnosed() == null && c.shutdownOverwrite() == null) {
                    leftByDeath.add("pid " + c.pid());
                } else {
                    causes.add(cause(c, t0));
                }
            }
        }
        if (!leftByDeath.isEmpty()) {
            causes.add(0, leftByDeath.size() + " of " + rc.children().size() + " child(ren) neither reaped nor diagnosed when"
                    + " the orchestrator died: " + some(leftByDeath));
        }
        for (dev.vigil.journal.StrayFound s : rc.strays()) {
            causes.add("stray pid " + s.pid() + " (" + s.command() + ", parent pid " + s.parentPid()
                    + ") left in " + s.container() + " after its parent was reaped (DESCENDANTS_LEFT)");
        }
        for (dev.vigil.journal.ContainmentEscaped x : rc.escapes()) {
            causes.add(escape(x));
        }
        String prefix = rc.isComplete() ? "" : rc.inProgressBy() > 0
                ? "IN PROGRESS (the journal is live: orchestrator pid " + rc.inProgressBy() + " is still running this close): "
                : rc.aborted() != null
                ? "ABORTED (the close failed inside the orchestrator: " + rc.aborted().reason() + "; its "
                        + rc.aborted().unreaped() + " unreaped child(ren) stay with the pool for its next close): "
                : rc.endedByDeath() != null
                ? "ENDED BY THE DEATH OF ITS ORCHESTRATOR (ORCHESTRATOR_DIED: pid " + rc.endedByDeath().deadPid() + "; the recovery by pid "
                        + rc.endedByDeath().orchestratorPid() + " made sure none of its children is alive): "
                : "INCOMPLETE (the journal ends before the close completed): ";
        if (rc.inProgressBy() > 0) {
            List<String> waiting = new ArrayList<>();
            for (ChildHistory c : rc.children()) {
                if (c.reaped() == null) {
                    waiting.add("pid " + c.pid());
                }
            }
            return prefix + (waiting.isEmpty() ? "every child reaped so far, the report not journaled yet"
                    : waiting.size() + " of " + rc.children().size() + " child(ren) not reaped yet: " + String.join(", ", waiting));
        }
        if (!causes.isEmpty()) {
            return prefix + "FAILED: " + String.join("; ", causes);
        }
        if (rc.children().isEmpty()) {
            return prefix + "clean: no children to close";
        }
        long lastReap = Long.MIN_VALUE;
        List<String> signaled = new ArrayList<>();
        for (ChildHistory c : rc.children()) {
            lastReap = Math.max(lastReap, c.reaped().timeNanos());
            if (c.reaped().signal() > 0) {
                signaled.add("pid " + c.pid() + " ended by " + SignalNames.name(c.reaped().signal()));
            }
        }
        return prefix + "clean: all " + rc.children().size() + " children reaped, the last at " + at(lastReap, t0)
                + (signaled.isEmpty() ? "" : "; " + String.join(", ", signaled));
    }

    /**
     * The class of every party that failed the close, as the live report names them
     * ({@code CloseReport.failureClasses}): per failing child {@code pid CLASS} (its journaled diagnosis,
     * {@code UNDIAGNOSED} without one), per stray {@code pid DESCENDANTS_LEFT}; a close its orchestrator's death
     * ended names its unreaped children {@code pid ORCHESTRATOR_DIED} instead (nobody diagnosed them).
     */
    public static List<String> failureClasses(RebuiltClose rc) {
        List<String> out = new ArrayList<>();
        for (ChildHistory c : rc.children()) {
            if (rc.endedByDeath() != null && c.reaped() == null) {
                out.add(c.pid() + " " + SurvivorClass.ORCHESTRATOR_DIED.name());
            } else if (c.outcome().failsTheClose()) {
                out.add(c.pid() + " " + (c.diagnosed() == null ? "UNDIAGNOSED" : c.diagnosed().diagnosis()));
            }
        }
        for (dev.vigil.journal.StrayFound s : rc.strays()) {
            out.add(s.pid() + " " + SurvivorClass.DESCENDANTS_LEFT.name());
        }
        for (dev.vigil.journal.ContainmentEscaped x : rc.escapes()) {
            out.add(x.pid() + " " + SurvivorClass.CONTAINMENT_ESCAPED.name());
        }
        return out;
    }

    /** One escape from the pool's cgroup, in one phrase. */
    static String escape(dev.vigil.journal.ContainmentEscaped x) {
        return "pid " + x.pid() + " (" + x.group() + "[" + x.index() + "]) had left the pool's cgroup for " + x.cgroup()
                + ": killed with " + (x.descendants().isEmpty() ? "no descendant found"
                        : "its descendants " + x.descendants()) + " (CONTAINMENT_ESCAPED)";
    }

    /** The class's cause and the next step made concrete from the evidence, or null for a child without a class. */
    public static String[] causeAndNextStep(ChildHistory c, boolean endedByDeath) {
        SurvivorClass cls = endedByDeath && c.reaped() == null ? SurvivorClass.ORCHESTRATOR_DIED
                : c.diagnosed() == null ? null : SurvivorClass.named(c.diagnosed().diagnosis());
        if (cls == null) {
            return null;
        }
        String evidence = c.diagnosed() == null ? null : c.diagnosed().evidence();
        return new String[] {cls.name() + ": " + SurvivorDiagnosis.cause(cls, evidence), SurvivorDiagnosis.nextStep(cls, evidence)};
    }

    /** Why one child failed the close, in one phrase. */
    public static String cause(ChildHistory c, long t0) {
        String base;
        String pid = "pid " + c.pid();
        MailboxTransition overwrite = c.shutdownOverwrite();
        String diagnosis = c.diagnosed() == null ? null : c.diagnosed().diagnosis();
        String diagnosedAt = c.diagnosed() == null ? "" : at(c.diagnosed().timeNanos(), t0);
        Map<String, String> ev = evidence(c.diagnosed() == null ? null : c.diagnosed().evidence());
        ShutdownPublished pub = c.published();
        if (overwrite != null) {
            base = "SHUTDOWN overwritten by " + overwrite.writer().toLowerCase(Locale.ROOT) + " pid "
                    + overwrite.writerPid() + " " + MailboxStates.name(overwrite.toState()) + " at seq " + overwrite.seq();
        } else if (diagnosis == null) {
            base = pub == null ? pid + " was never sent shutdown and was not reaped"
                    : pid + " not reaped and not diagnosed by the close's end";
        } else {
            switch (diagnosis) {
                case "NOT_DELIVERED":
                    base = pub == null ? "shutdown never published to " + pid
                            : !pub.casWon() ? pid + ": shutdown CAS found word=" + pub.observedWord() + " at "
                                    + at(pub.timeNanos(), t0)
                            : pid + ": shutdown published at " + at(pub.timeNanos(), t0) + " is not in its mailbox";
                    break;
                case "NOT_OBSERVED":
                case "STUCK_IN_HANDLER":
                    MailboxTransition last = c.lastTransition();
                    base = pid + " never acknowledged the shutdown"
                            + (pub == null ? "" : " published at " + at(pub.timeNanos(), t0)) + ": "
                            + (last == null ? noTransition(ev) : MailboxStates.whereTheChildIs(last.toState())
                                    + " (" + MailboxStates.name(last.toState()) + " since " + at(last.timeNanos(), t0)
                                    + ", seq " + last.seq() + ")")
                            + (ev.containsKey("op") ? ", handler op " + ev.get("op") + " (command " + ev.get("command")
                                    + ") running " + ev.get("in_handler") : "")
                            + (ev.containsKey("heartbeat_age") ? ", last beat " + ev.get("heartbeat_age") + " before "
                                    + diagnosedAt : "");
                    break;
                case "WEDGED":
                    base = pid + acked(c, t0) + ", then stopped beating: wedged at " + diagnosedAt + proc(ev);
                    break;
                case "FINALIZING":
                    base = pid + acked(c, t0) + ", still finalizing at " + diagnosedAt;
                    break;
                case "STOPPED":
                    base = pid + " stopped (proc state T) at " + diagnosedAt;
                    break;
                default:
                    base = pid + " diagnosed " + diagnosis + " at " + diagnosedAt;
            }
        }
        if (ChildOutcome.KILLED_BY_ESCALATION.equals(c.outcome().outcome())) {
            base += ", killed by escalation (" + escalations(c, t0) + ")";
        }
        return base;
    }

    /**
     * Every escalation signal a child was sent and the one that ended it, e.g.
     * {@code SIGTERM at +1.020 s, SIGKILL at +1.530 s; ended by SIGKILL}.
     */
    public static String escalations(ChildHistory c, long t0) {
        List<String> sent = new ArrayList<>();
        for (var e : c.escalations()) {
            sent.add(SignalNames.name(e.signal()) + " at " + at(e.timeNanos(), t0));
        }
        return String.join(", ", sent) + "; " + ending(c);
    }

    /** How the child ended: {@code ended by SIGKILL}, {@code exited 0}, or {@code not reaped}. */
    public static String ending(ChildHistory c) {
        return c.reaped() == null ? "not reaped"
                : c.endingSignal() > 0 ? "ended by " + SignalNames.name(c.endingSignal())
                : "exited " + c.reaped().exitCode();
    }

    /**
     * Where a child whose state word has no journaled transition is, by its diagnosis evidence: a plain executable (no
     * mailbox), or a child whose runtime never reported INIT_READY (IDLE at seq 0).
     */
    private static String noTransition(Map<String, String> ev) {
        if (SurvivorDiagnosis.signaledOnly(ev)) {
            return "a plain executable (no mailbox) that outlived its stop signal";
        }
        if (SurvivorDiagnosis.neverReachedItsLoop(ev)) {
            return "it never reached its loop (no INIT_READY: IDLE at seq 0)";
        }
        return "state unknown";
    }

    private static String acked(ChildHistory c, long t0) {
        ChildAcked a = c.acked();
        return a == null ? " (no ack journaled)" : " acked at " + at(ackTime(a), t0);
    }

    /** The child's own stamp of first seeing shutdown, or the journal time when it has none. */
    static long ackTime(ChildAcked a) {
        return a.ackNanos() > 0 ? a.ackNanos() : a.timeNanos();
    }

    private static String proc(Map<String, String> ev) {
        return ev.containsKey("proc") ? " (proc=" + ev.get("proc")
                + (ev.containsKey("wchan") ? " wchan=" + ev.get("wchan") : "") + ")" : "";
    }

    /** key=value pairs of a diagnosis evidence text. */
    static Map<String, String> evidence(String text) {
        return SurvivorDiagnosis.evidence(text);
    }

    /** A time relative to {@code t0} as {@code +1.234 s}. */
    public static String at(long timeNanos, long t0) {
        long d = timeNanos - t0;
        return String.format(ReplayText.NUMBERS, "%+.3f s", Math.abs(d) < 500_000 ? 0.0 : d / 1e9);
    }
}
