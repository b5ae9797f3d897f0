package dev.vigil.close.decision;

import dev.vigil.journal.JournalException;

import java.util.List;
import java.util.stream.Collectors;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The result of one close: per child its outcome, exit code or signal, time from broadcast to
 * reap and the survivor diagnosis. The JSON form ({@link #toJson}: its field names, order and what it leaves out)
 * is a contract: the replay tool rebuilds the same JSON from the journal alone.
 *
 * <p>outcome is FAILED iff any child is a SURVIVOR or was KILLED_BY_ESCALATION.
 */
public record CloseReport(String poolId, long closeId, Outcome outcome, long durationNanos, List<Child> children,
        List<Stray> strays, List<Kill> kills, List<Escape> escapes, String journalGap) {
    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** Whole-close outcome. */
    public enum Outcome { CLEAN, FAILED }

    /** One child's outcome. */
    public enum ChildOutcome {
        /** Reaped with an exit code, no escalation sent before its reap. */
        EXITED,
        /** Reaped, ended by a signal (e.g. a plain executable by its stop signal), no escalation sent before its reap. */
        SIGNALED,
        /** Reaped after this close sent it an escalation signal. */
        KILLED_BY_ESCALATION,
        /** Not reaped by the end of the close: keeps its mailbox, stays tracked for a retry. */
        SURVIVOR;

        /**
         * The rule: not reaped -> SURVIVOR; reaped after an escalation signal was sent to it -> KILLED_BY_ESCALATION;
         * else ended by a signal -> SIGNALED; else EXITED.
         */
        public static ChildOutcome of(boolean reaped, boolean escalatedBeforeReap, int signal) {
            if (!reaped) {
                return SURVIVOR;
            }
            return escalatedBeforeReap ? KILLED_BY_ESCALATION : signal > 0 ? SIGNALED : EXITED;
        }

        /** True for the outcomes that fail a close. */
        public boolean failsTheClose() {
            return this == SURVIVOR || this == KILLED_BY_ESCALATION;
        }
    }

    /**
     * One child in the report.
     *
     * @param exitCode            -1 when a signal ended it or it was not reaped
     * @param signal              the signal that ended it, 0 if none
     * @param sinceBroadcastNanos reap time minus broadcast time (0 if it was gone before), -1 when not reaped
     * @param diagnosis           the SurvivorClass name when it outlived the reap budget, else null
     * @param evidence            the diagnosis line, else null
     * @param stacks              one line on its own stacks, captured before the first escalation signal (the full
     *                            text is journaled: SurvivorStacks), else null
     * @param stderrTail          the last lines of its stderr log file when it failed ({@code wantsStderrTail}) and
     *                            its output went to a log file (journaled: ChildOutputTail), else null
     */
    public record Child(String group, int index, int pid, String kind, ChildOutcome outcome, int exitCode, int signal,
            long sinceBroadcastNanos, String diagnosis, String evidence, String stacks, String stderrTail) {
        public Child(String group, int index, int pid, String kind, ChildOutcome outcome, int exitCode, int signal,
                long sinceBroadcastNanos, String diagnosis, String evidence) {
            this(group, index, pid, kind, outcome, exitCode, signal, sinceBroadcastNanos, diagnosis, evidence, null, null);
        }

        public Child(String group, int index, int pid, String kind, ChildOutcome outcome, int exitCode, int signal,
                long sinceBroadcastNanos, String diagnosis, String evidence, String stacks) {
            this(group, index, pid, kind, outcome, exitCode, signal, sinceBroadcastNanos, diagnosis, evidence, stacks, null);
        }

        /**
         * It had exited before its close began (during the run) and the close only collected it: no broadcast reached
         * it, so it has no broadcast-to-reap latency (sinceBroadcastNanos 0 by convention).
         */
        public boolean goneBeforeClose() {
            return sinceBroadcastNanos == 0 && outcome != ChildOutcome.SURVIVOR;
        }

        /**
         * Whether a child's stderr tail belongs in the report: it failed the close (killed by escalation, survivor),
         * exited non-zero, or ended by a signal other than a stop signal (SIGHUP, SIGINT, SIGTERM).
         */
        public static boolean wantsStderrTail(ChildOutcome outcome, int exitCode, int signal) {
            return outcome.failsTheClose() || exitCode > 0 || signal > 0 && signal != 1 && signal != 2 && signal != 15;
        }
    }

    /** The stderr tails of the children that failed without failing the close (exit non-zero, a crash); "" if none. */
    public String describeStderrTails() {
        StringBuilder sb = new StringBuilder();
        for (Child c : children) {
            if (c.stderrTail() != null && !c.outcome().failsTheClose()) {
                sb.append("\n  pid=").append(c.pid()).append(" group=").append(c.group()).append(" child=")
                        .append(c.index()).append(' ').append(c.signal() > 0 ? "signal=" + c.signal() : "exitCode=" + c.exitCode());
                appendTail(sb, c.stderrTail());
            }
        }
        return sb.toString();
    }

    private static void appendTail(StringBuilder sb, String tail) {
        sb.append("\n    stderr (last lines):");
        for (String line : tail.strip().split("\n")) {
            sb.append("\n      | ").append(line);
        }
    }

    /**
     * A process left in the pool's container (cgroup, or process groups in the fallback) after its own
     * parent, a direct child, was reaped: a daemon, a double fork. Journal: StrayFound.
     *
     * @param killed whether the close ended it (TERM_THEN_KILL); under LEAK it is kept
     */
    public record Stray(int pid, int parentPid, String command, boolean killed) {
    }

    /**
     * One kill of a whole container and what it covered. Journal: ContainmentKilled.
     *
     * @param how            {@code cgroup.kill} or {@code pgroup SIGKILL}
     * @param directChildren direct children of the pool among the processes it killed
     * @param descendants    every other process it killed
     * @param empty          whether the container was empty afterwards (within the bound)
     */
    public record Kill(String how, String container, int directChildren, int descendants, boolean empty) {
    }

    /**
     * A direct child found outside the pool's cgroup when the close began (it moved itself into {@code cgroup}),
     * killed by the close with {@code descendants}, the pids found below it by parentage. Journal: ContainmentEscaped.
     */
    public record Escape(String group, int index, int pid, String cgroup, String descendants) {
    }

    public CloseReport {
        children = List.copyOf(children);
        strays = strays == null ? List.of() : List.copyOf(strays);
        kills = kills == null ? List.of() : List.copyOf(kills);
        escapes = escapes == null ? List.of() : List.copyOf(escapes);
    }

    public CloseReport(String poolId, long closeId, Outcome outcome, long durationNanos, List<Child> children) {
        this(poolId, closeId, outcome, durationNanos, children, List.of(), List.of());
    }

    /** A report whose journal was complete when the close returned it. */
    public CloseReport(String poolId, long closeId, Outcome outcome, long durationNanos, List<Child> children,
            List<Stray> strays, List<Kill> kills) {
        this(poolId, closeId, outcome, durationNanos, children, strays, kills, List.of(), null);
    }

    /**
     * This report, saying that the journal is incomplete ({@code gap}: from which index, how many events, why).
     * The live report only: the journaled one is written before the gap can be known.
     */
    public CloseReport withJournalGap(String gap) {
        return new CloseReport(poolId, closeId, outcome, durationNanos, children, strays, kills, escapes, gap);
    }

    /** The outcome the report's children and strays imply: FAILED with any stray, killed or kept. */
    public static Outcome outcomeOf(List<Child> children, List<Stray> strays) {
        return outcomeOf(children, strays, List.of());
    }

    /** As {@link #outcomeOf(List, List)}, and FAILED with any escape from the container too. */
    public static Outcome outcomeOf(List<Child> children, List<Stray> strays, List<Escape> escapes) {
        return strays.isEmpty() && escapes.isEmpty() ? outcomeOf(children) : Outcome.FAILED;
    }

    /** The outcome the report's children imply. */
    public static Outcome outcomeOf(List<Child> children) {
        for (Child c : children) {
            if (c.outcome().failsTheClose()) {
                return Outcome.FAILED;
            }
        }
        return Outcome.CLEAN;
    }

    public boolean isClean() {
        return outcome == Outcome.CLEAN;
    }

    public List<Child> survivors() {
        return children.stream().filter(c -> c.outcome() == ChildOutcome.SURVIVOR).collect(Collectors.toList());
    }

    /** The entry of child {@code index} of {@code group}; fails if absent. */
    public Child child(String group, int index) {
        for (Child c : children) {
            if (c.group().equals(group) && c.index() == index) {
                return c;
            }
        }
        throw new IllegalArgumentException("closeId=" + closeId + " pool=" + poolId + " has no child group=" + group
                + " index=" + index);
    }

    /**
     * Loads Jackson's generator and builds the report's deserializer now (200-400 ms on a cold JVM), so that no close
     * pays for it: called when the orchestrator opens.
     */
    public static void warmUp() {
        CloseReport sample = new CloseReport("warm-up", 0, Outcome.CLEAN, 0, List.of(new Child("g", 0, 0, "C",
                ChildOutcome.EXITED, 0, 0, 0, null, null)));
        fromJson(sample.toJson());
    }

    /**
     * The report's JSON, written field by field through Jackson's generator: the order and the fields left out
     * (stacks, stderrTail, journalGap when null; strays, kills, escapes when empty) are said here, once. Not through the
     * mapper's bean serializer: a close writes one report and runs this code cold (interpreted, caches cold) after
     * its last reap; the bean serializer took ~170 us of that, this ~100 us (C x1 idle, load 9-11).
     */
    public String toJson() {
        java.io.StringWriter out = new java.io.StringWriter(256 + 160 * children.size());
        try (JsonGenerator g = JSON.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("poolId", poolId);
            g.writeNumberField("closeId", closeId);
            g.writeStringField("outcome", outcome.name());
            g.writeNumberField("durationNanos", durationNanos);
            writeObjects(g, "children", children, (w, c) -> {
                w.writeStringField("group", c.group);
                w.writeNumberField("index", c.index);
                w.writeNumberField("pid", c.pid);
                w.writeStringField("kind", c.kind);
                w.writeStringField("outcome", c.outcome.name());
                w.writeNumberField("exitCode", c.exitCode);
                w.writeNumberField("signal", c.signal);
                w.writeNumberField("sinceBroadcastNanos", c.sinceBroadcastNanos);
                w.writeStringField("diagnosis", c.diagnosis);
                w.writeStringField("evidence", c.evidence);
                if (c.stacks != null) {
                    w.writeStringField("stacks", c.stacks);
                }
                if (c.stderrTail != null) {
                    w.writeStringField("stderrTail", c.stderrTail);
                }
            });
            if (!strays.isEmpty()) {
                writeObjects(g, "strays", strays, (w, st) -> {
                    w.writeNumberField("pid", st.pid);
                    w.writeNumberField("parentPid", st.parentPid);
                    w.writeStringField("command", st.command);
                    w.writeBooleanField("killed", st.killed);
                });
            }
            if (!kills.isEmpty()) {
                writeObjects(g, "kills", kills, (w, k) -> {
                    w.writeStringField("how", k.how);
                    w.writeStringField("container", k.container);
                    w.writeNumberField("directChildren", k.directChildren);
                    w.writeNumberField("descendants", k.descendants);
                    w.writeBooleanField("empty", k.empty);
                });
            }
            if (!escapes.isEmpty()) {
                writeObjects(g, "escapes", escapes, (w, e) -> {
                    w.writeStringField("group", e.group);
                    w.writeNumberField("index", e.index);
                    w.writeNumberField("pid", e.pid);
                    w.writeStringField("cgroup", e.cgroup);
                    w.writeStringField("descendants", e.descendants);
                });
            }
            if (journalGap != null) {
                g.writeStringField("journalGap", journalGap);
            }
            g.writeEndObject();
        } catch (java.io.IOException e) {
            throw new IllegalStateException("closeId=" + closeId + " report not serializable: " + JournalException.plain(e), e);
        }
        return out.toString();
    }

    /** The fields of one JSON object. */
    private interface Fields<T> {
        void write(JsonGenerator g, T item) throws java.io.IOException;
    }

    /** {@code "name":[{...},...]}, each object's fields written by {@code fields}. */
    private static <T> void writeObjects(JsonGenerator g, String name, List<T> items, Fields<T> fields)
            throws java.io.IOException {
        g.writeArrayFieldStart(name);
        for (T item : items) {
            g.writeStartObject();
            fields.write(g, item);
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    public static CloseReport fromJson(String json) {
        try {
            return JSON.readValue(json, CloseReport.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a CloseReport: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * The class of every party that failed the close, in report order: per failing child {@code pid CLASS} (its
     * diagnosis; {@code UNDIAGNOSED} for one reaped before any diagnosis, e.g. an exit after escalate-now), per stray
     * {@code pid DESCENDANTS_LEFT}, per escaped child {@code pid CONTAINMENT_ESCAPED}. The replay names the same list
     * from the journal.
     */
    public List<String> failureClasses() {
        List<String> out = new java.util.ArrayList<>();
        for (Child c : children) {
            if (c.outcome().failsTheClose()) {
                out.add(c.pid() + " " + (c.diagnosis() == null ? "UNDIAGNOSED" : c.diagnosis()));
            }
        }
        for (Stray s : strays) {
            out.add(s.pid() + " " + SurvivorClass.DESCENDANTS_LEFT.name());
        }
        for (Escape e : escapes) {
            out.add(e.pid() + " " + SurvivorClass.CONTAINMENT_ESCAPED.name());
        }
        return out;
    }

    /** One line per non-clean child, for messages and logs. */
    public String describeFailures() {
        StringBuilder sb = new StringBuilder();
        for (Child c : children) {
            if (c.outcome().failsTheClose()) {
                sb.append("\n  outcome=").append(c.outcome());
                if (c.outcome() == ChildOutcome.KILLED_BY_ESCALATION) {
                    sb.append(" signal=").append(c.signal()).append(" exitCode=").append(c.exitCode());
                }
                sb.append(' ').append(c.evidence() != null ? c.evidence()
                        : "pid=" + c.pid() + " group=" + c.group() + " child=" + c.index());
                SurvivorClass cls = SurvivorClass.named(c.diagnosis());
                if (cls != null) {
                    sb.append("\n    cause: ").append(SurvivorDiagnosis.cause(cls, c.evidence())).append("\n    next: ")
                            .append(SurvivorDiagnosis.nextStep(cls, c.evidence()));
                }
                if (c.stacks() != null) {
                    sb.append("\n    stacks: ").append(c.stacks());
                }
                if (c.stderrTail() != null) {
                    appendTail(sb, c.stderrTail());
                }
            }
        }
        for (Stray s : strays) {
            sb.append("\n  outcome=STRAY pid=").append(s.pid()).append(" ppid=").append(s.parentPid())
                    .append(s.killed() ? " killed" : " kept").append(" command=").append(s.command())
                    .append(" class=").append(SurvivorClass.DESCENDANTS_LEFT.name());
        }
        if (!strays.isEmpty()) {
            sb.append("\n    cause: ").append(SurvivorClass.DESCENDANTS_LEFT.cause()).append("\n    next: ")
                    .append(SurvivorClass.DESCENDANTS_LEFT.nextStep());
        }
        for (Escape e : escapes) {
            sb.append("\n  outcome=ESCAPED pid=").append(e.pid()).append(" group=").append(e.group()).append(" child=")
                    .append(e.index()).append(" cgroup=").append(e.cgroup()).append(" killed with descendants=[")
                    .append(e.descendants()).append("] class=").append(SurvivorClass.CONTAINMENT_ESCAPED.name())
                    .append("\n    cause: ").append(SurvivorClass.CONTAINMENT_ESCAPED.cause()).append("\n    next: ")
                    .append(SurvivorClass.CONTAINMENT_ESCAPED.nextStep());
        }
        for (Kill k : kills) {
            sb.append("\n  kill=").append(k.how()).append(" container=").append(k.container()).append(" covered=")
                    .append(k.directChildren()).append(" direct child(ren) + ").append(k.descendants())
                    .append(" descendant(s)").append(k.empty() ? " empty" : " NOT EMPTY");
        }
        return sb.toString();
    }
}
