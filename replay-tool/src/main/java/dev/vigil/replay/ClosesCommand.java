package dev.vigil.replay;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vigil.journal.ChildRestarted;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JsonEvents;
import dev.vigil.journal.PoolFailed;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code closes DIR}: every close with its pool, start, duration, outcome, and its children counted
 * apart: reaped (exited on their own), killed (by escalation), kept (survivors left running).
 */
public final class ClosesCommand implements Callable<Integer> {
    /** The outcome of a close the journal has no completion of. */
    enum Unfinished {
        /** The journal ends inside it. */
        INCOMPLETE,
        /** The orchestrator writing it still runs. */
        IN_PROGRESS,
        /** Ended by the recovery after its orchestrator died. */
        ORCHESTRATOR_DIED,
        /** It failed inside the orchestrator (CloseAborted). */
        ABORTED
    }

    /** As wide as the longest outcome a row can print (ORCHESTRATOR_DIED ran 7 columns into the next one). */
    static final int OUTCOME_WIDTH = java.util.stream.Stream.concat(
            java.util.Arrays.stream(dev.vigil.close.decision.CloseReport.Outcome.values()),
            java.util.Arrays.stream(Unfinished.values())).mapToInt(o -> o.name().length()).max().orElseThrow();
    private static final String HEADER_FORMAT = "%15s  %-16s  %12s  %10s  %-" + OUTCOME_WIDTH + "s  %6s  %6s  %4s  %6s%n";
    private static final String ROW_FORMAT = "%15d  %-16s  %12s  %10s  %-" + OUTCOME_WIDTH + "s  %6s  %6s  %4s  %6s%n";

    ReplayCli cli;
    Path dir;
    SourceOptions source;
    boolean json;

    /** The command line model of {@code closes}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        ClosesCommand c = new ClosesCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "closes", "List every close in the journal with its outcome.",
                "List every close in the journal: pool, start (relative to the journal's first event),",
                "duration, outcome, and children reaped (exited on their own), killed (by escalation) and kept",
                "(survivors left running), as the orchestrator reported them. A close the journal ends",
                "inside is listed as INCOMPLETE, or IN_PROGRESS while the orchestrator writing it still runs",
                "that close. Closes are listed as they complete.");
        CommandModel.journalDir(spec, () -> c.dir, v -> c.dir = v);
        c.source = SourceOptions.addTo(spec);
        CommandModel.flag(spec, "--json", "one JSON object per close, per line", () -> c.json, v -> c.json = v);
        return spec;
    }

    @Override
    public Integer call() {
        return source.run(dir, json, cli.out, (s, out) -> run(s, json, out));
    }

    public static int run(Path dir, boolean json, PrintStream out) {
        return run(new JournalDirectorySource(dir), json, out);
    }

    public static int run(EventSource source, boolean json, PrintStream out) {
        int live = source.liveOrchestratorPid(); // before the read: see CloseReconstruction.finish(int)
        Map<Long, CloseStarted> open = new HashMap<>();
        // per pool, restarts since its last close started; per close, the failure that started it
        Map<String, Integer> restarts = new HashMap<>();
        Map<Long, Integer> restartsBefore = new HashMap<>();
        Map<Long, PoolFailed> failures = new HashMap<>();
        long origin = source.firstEventTime();
        if (!json) {
            out.printf(ReplayText.NUMBERS, HEADER_FORMAT, "close", "pool", "started",
                    "duration", "outcome", "reaped", "killed", "kept", "strays");
        }
        source.read(EnumSet.of(EventType.CLOSE_STARTED, EventType.CLOSE_COMPLETED,
                EventType.CLOSE_ENDED_BY_ORCHESTRATOR_DEATH, EventType.CLOSE_ABORTED, EventType.CHILD_RESTARTED, EventType.POOL_FAILED,
                EventType.JOURNAL_SET_ASIDE), (i, e) -> {
            if (e instanceof dev.vigil.journal.JournalSetAside a) {
                out.println(json ? ReplayText.setAsideJson(a) : ReplayText.setAside(a));
            } else if (e instanceof CloseStarted s) {
                open.put(s.closeId(), s);
                Integer n = restarts.remove(s.poolId());
                if (n != null) {
                    restartsBefore.put(s.closeId(), n);
                }
            } else if (e instanceof CloseCompleted c) {
                CloseStarted s = open.remove(c.closeId());
                row(out, json, s, c, origin, Unfinished.INCOMPLETE.name(), restartsBefore.remove(c.closeId()), failures.remove(c.closeId()));
            } else if (e instanceof dev.vigil.journal.CloseEndedByOrchestratorDeath
                    || e instanceof dev.vigil.journal.CloseAborted) {
                // ended without a report: by the recovery after its orchestrator died, or by a failure inside it
                CloseStarted s = open.remove(e.closeId());
                if (s != null) {
                    Unfinished how = e instanceof dev.vigil.journal.CloseAborted ? Unfinished.ABORTED
                            : Unfinished.ORCHESTRATOR_DIED;
                    row(out, json, s, null, origin, how.name(), restartsBefore.remove(e.closeId()),
                            failures.remove(e.closeId()));
                }
            } else if (e instanceof ChildRestarted r) {
                restarts.merge(r.poolId(), 1, Integer::sum);
            } else if (e instanceof PoolFailed f && f.closeId() != 0) {
                failures.put(f.closeId(), f);
            }
            return true;
        });
        for (CloseStarted s : open.values()) {
            Unfinished unfinished = live > 0 && s.orchestratorPid() == live ? Unfinished.IN_PROGRESS : Unfinished.INCOMPLETE;
            row(out, json, s, null, origin, unfinished.name(),
                    restartsBefore.get(s.closeId()), failures.get(s.closeId()));
        }
        return 0;
    }

    /**
     * @param unfinished the outcome printed when {@code c} is null: INCOMPLETE, IN_PROGRESS (its orchestrator still
     *        runs it), ORCHESTRATOR_DIED, or ABORTED (it failed inside
     *        the orchestrator: CloseAborted)
     * @param restarts children the pool restarted since its previous close (null: none)
     * @param failed the pool failure that started this close, or null
     */
    private static void row(PrintStream out, boolean json, CloseStarted s, CloseCompleted c, long origin, String unfinished,
            Integer restarts, PoolFailed failed) {
        long closeId = s != null ? s.closeId() : c.closeId();
        String pool = s != null ? s.poolId() : c.poolId();
        String outcome = c != null ? c.outcome() : unfinished;
        int killed = c == null ? 0 : killed(c);
        int strays = c == null ? 0 : strays(c);
        if (json) {
            ObjectNode n = JsonEvents.mapper().createObjectNode();
            n.put("closeId", closeId).put("poolId", pool);
            if (s != null) {
                n.put("startNanos", s.timeNanos()).put("startOffsetNanos", s.timeNanos() - origin)
                        .put("children", s.children()).put("otherClosesInFlight", s.otherClosesInFlight());
            }
            n.put("outcome", outcome);
            n.put("restartsBefore", restarts == null ? 0 : restarts);
            if (failed != null) {
                n.put("poolFailed", failed.reason());
            }
            if (c != null) {
                n.put("durationNanos", c.durationNanos()).put("reaped", c.reaped() - killed).put("killed", killed)
                        .put("kept", c.survivors()).put("survivors", c.survivors()).put("strays", strays);
            }
            out.println(n);
        } else {
            out.printf(ReplayText.NUMBERS, ROW_FORMAT, closeId, pool,
                    s == null ? "?" : CloseVerdict.at(s.timeNanos(), origin),
                    c == null ? "-" : String.format(ReplayText.NUMBERS, "%.3f s", c.durationNanos() / 1e9),
                    outcome, c == null ? "-" : Integer.toString(c.reaped() - killed),
                    c == null ? "-" : Integer.toString(killed), c == null ? "-" : Integer.toString(c.survivors()),
                    c == null ? "-" : Integer.toString(strays));
            if (restarts != null || failed != null) {
                out.println("                 " + (restarts == null ? "" : restarts + " restart(s) before this close")
                        + (restarts != null && failed != null ? "; " : "")
                        + (failed == null ? "" : "started by the pool's failure: " + failed.reason()));
            }
        }
    }

    /** Strays the close reported (processes left in its container after their parent was gone); 0 when unreadable. */
    static int strays(CloseCompleted c) {
        try {
            return JsonEvents.mapper().readTree(c.reportJson()).path("strays").size();
        } catch (java.io.IOException unreadable) {
            return 0;
        }
    }

    /**
     * Children the close killed by escalation, from its report (CloseCompleted.reaped counts them with
     * the children that exited on their own); 0 when the report is unreadable.
     */
    static int killed(CloseCompleted c) {
        try {
            return (int) CloseOutcome.fromJson(c.reportJson(), c.closeId()).children().stream()
                    .filter(ch -> ChildOutcome.KILLED_BY_ESCALATION.equals(ch.outcome())).count();
        } catch (ReplayInputException unreadable) {
            return 0;
        }
    }
}
