package dev.vigil.replay;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vigil.close.decision.SurvivorClass;
import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.ChildRestarted;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JsonEvents;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.PoolFailed;
import dev.vigil.journal.ShutdownPublished;

import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/** {@code show DIR CLOSE}: the reconstruction of one close, child by child, and its verdict. */
public final class ShowCommand implements Callable<Integer> {
    ReplayCli cli;
    List<String> args;
    SourceOptions source;
    boolean json;
    Path map;

    /** The command line model of {@code show}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        ShowCommand c = new ShowCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "show", "Rebuild one close from the journal, child by child.",
                "Rebuild one close from the journal: per child the state-word history (seq, from, to,",
                "writer, time), shutdown published / acked / reaped times, exit status, diagnosis and evidence,",
                "and a one-line verdict naming the cause. Times are relative to the close's start. The rebuilt",
                "outcome is compared with the report the orchestrator journaled.");
        CommandModel.dirAndClose(spec, () -> c.args, v -> c.args = v);
        c.source = SourceOptions.addTo(spec);
        CommandModel.flag(spec, "--json", "one JSON object", () -> c.json, v -> c.json = v);
        spec.addOption(CommandModel.option(Path.class, "FILE", () -> c.map, v -> c.map = v, "--map").description(
                "the orchestrator's mailbox map file: show each child's final mailbox words, and"
                + " finish a close the journal ends inside with the ring records never drained").build());
        return spec;
    }

    @Override
    public Integer call() {
        CloseLookup.Target t = CloseLookup.Target.of(args, source);
        return source.runOnHolder(t.dir(), cli.out, s -> CloseLookup.holds(s, t.closeId()), "close id=" + t.closeId(),
                (s, out) -> run(s, t.closeId(), json, map, out));
    }

    public static int run(Path dir, long closeId, boolean json, PrintStream out) {
        return run(dir, closeId, json, null, out);
    }

    public static int run(Path dir, long closeId, boolean json, Path mapFile, PrintStream out) {
        return run(new JournalDirectorySource(dir), closeId, json, mapFile, out);
    }

    public static int run(EventSource source, long closeId, boolean json, Path mapFile, PrintStream out) {
        CloseLookup.Result r = CloseLookup.rebuild(source, closeId, mapFile);
        if (json) {
            out.println(toJson(r.close()));
        } else {
            print(r.close(), out);
        }
        if (r.damage() != null) {
            out.flush();
            throw r.damage();
        }
        return 0;
    }

    static void print(RebuiltClose rc, PrintStream out) {
        CloseStarted s = rc.started();
        CloseCompleted c = rc.completed();
        long t0 = s.timeNanos();
        CloseOutcome rebuilt = rc.outcome();
        out.printf(ReplayText.NUMBERS, "close %d  pool %s  mode %s  escalation %s  children %d  strays %d  overlapping closes %d%n",
                s.closeId(), s.poolId(), rc.protocolMode(), s.escalation(), rc.children().size(), rc.strays().size(),
                s.otherClosesInFlight());
        if (c == null && rc.endedByDeath() != null) {
            out.printf(ReplayText.NUMBERS, "started +0.000 s, never completed: its orchestrator pid %d died; ended by the recovery"
                    + " of pid %d at %s (unreaped then: %s), rebuilt outcome %s%n", rc.endedByDeath().deadPid(),
                    rc.endedByDeath().orchestratorPid(), CloseVerdict.at(rc.endedByDeath().timeNanos(), t0),
                    CloseVerdict.unreapedAtDeath(rc).isEmpty() ? rc.endedByDeath().unreaped()
                            : CloseVerdict.unreapedAtDeath(rc).size() + ": " + CloseVerdict.some(CloseVerdict.unreapedAtDeath(rc)),
                    rebuilt.outcome());
        } else if (c == null && rc.aborted() != null) {
            out.printf(ReplayText.NUMBERS, "started +0.000 s, aborted %s: the close failed inside its orchestrator pid %d (%s),"
                    + " %d child(ren) not reaped then, rebuilt outcome %s%n", CloseVerdict.at(rc.aborted().timeNanos(), t0),
                    rc.aborted().orchestratorPid(), rc.aborted().reason(), rc.aborted().unreaped(), rebuilt.outcome());
        } else if (c == null && rc.inProgressBy() > 0) {
            out.printf(ReplayText.NUMBERS, "started +0.000 s, in progress: orchestrator pid %d is still running it (so far: %d child(ren)"
                    + " not reaped yet)%n", rc.inProgressBy(), rebuilt.survivors());
        } else if (c == null) {
            out.printf(ReplayText.NUMBERS, "started +0.000 s, not completed in the journal, rebuilt outcome %s, survivors %d%n",
                    rebuilt.outcome(), rebuilt.survivors());
        } else {
            out.printf(ReplayText.NUMBERS, "started +0.000 s, completed %s (duration %s), outcome %s, survivors %d%n",
                    CloseVerdict.at(c.timeNanos(), t0), seconds(c.durationNanos()), rebuilt.outcome(), rebuilt.survivors());
            out.println("live report: " + liveAgreement(rc, rebuilt));
        }
        out.println("verdict: " + CloseVerdict.of(rc));
        if (rc.escalateNow() != null) {
            out.println("escalate-now: asked by " + rc.escalateNow().origin() + " at "
                    + CloseVerdict.at(rc.escalateNow().timeNanos(), t0) + " (survivors killed at once, whatever the policy)");
        }
        out.println("classes: " + (CloseVerdict.failureClasses(rc).isEmpty() ? "none"
                : CloseVerdict.classesLine(CloseVerdict.failureClasses(rc))));
        if (!rc.strays().isEmpty()) {
            out.println("  DESCENDANTS_LEFT: " + SurvivorClass.DESCENDANTS_LEFT.cause());
            out.println("  next: " + SurvivorClass.DESCENDANTS_LEFT.nextStep());
        }
        if (!rc.escapes().isEmpty()) {
            out.println("  CONTAINMENT_ESCAPED: " + SurvivorClass.CONTAINMENT_ESCAPED.cause());
            out.println("  next: " + SurvivorClass.CONTAINMENT_ESCAPED.nextStep());
        }
        printRun(rc, t0, out);
        for (ChildHistory ch : rc.children()) {
            out.println();
            printChild(ch, t0, rc.endedByDeath() != null, out);
        }
        printContainer(rc, t0, out);
    }

    /** The strays the close found in its pool's container, and each kill of the whole container with what it covered. */
    private static void printContainer(RebuiltClose rc, long t0, PrintStream out) {
        if (!rc.strays().isEmpty()) {
            out.println();
            out.printf(ReplayText.NUMBERS, "strays: %d (left in the pool's container after their parent was gone)%n", rc.strays().size());
            // as the live report's "killed"/"kept": a term-then-kill close ends its strays (SIGTERM, then the container's
            // kill after the grace), a leak close keeps them unless the container was killed (escalate-now)
            boolean ended = !dev.vigil.close.decision.EscalationPolicy.LEAK.label().equals(rc.started().escalation())
                    || !rc.kills().isEmpty();
            for (var st : rc.strays()) {
                out.printf(ReplayText.NUMBERS, "  stray pid %d  parent pid %d  found %s  in %s  command %s  (%s)%n", st.pid(),
                        st.parentPid(), CloseVerdict.at(st.timeNanos(), t0), st.container(), st.command(),
                        ended ? "ended by the close" : "kept: escalation leak");
            }
        }
        for (var x : rc.escapes()) {
            out.println();
            out.println("escape at " + CloseVerdict.at(x.timeNanos(), t0) + ": " + CloseVerdict.escape(x));
        }
        for (var k : rc.kills()) {
            out.println();
            out.printf(ReplayText.NUMBERS, "container kill (%s) at %s: %s covered %d direct child(ren) + %d descendant(s)"
                    + " [pids %s], %s%n", k.mode(), CloseVerdict.at(k.timeNanos(), t0), k.container(), k.directChildren(),
                    k.descendants(), k.pids(), k.empty() ? "empty " + seconds(k.emptyAfterNanos()) + " after the kill"
                            : "NOT EMPTY within the bound");
        }
    }

    /** Exits, restarts and the pool's failure since its previous close (times relative to this close's start). */
    private static void printRun(RebuiltClose rc, long t0, PrintStream out) {
        if (rc.runEvents().isEmpty()) {
            return;
        }
        PoolFailed failed = rc.poolFailed();
        if (failed != null) {
            out.println("started by the pool's failure at " + CloseVerdict.at(failed.timeNanos(), t0) + ": " + failed.reason());
        }
        out.println("while the pool ran (since its previous close)" + (rc.runEventsDropped() > 0
                ? ", the latest " + rc.runEvents().size() + " (" + rc.runEventsDropped() + " earlier not shown)" : "") + ":");
        for (JournalEvent e : rc.runEvents()) {
            out.println("  " + describeRunEvent(e, t0));
        }
    }

    static String describeRunEvent(JournalEvent e, long t0) {
        String at = CloseVerdict.at(e.timeNanos(), t0);
        if (e instanceof ChildExited x) {
            return String.format(ReplayText.NUMBERS, "%s  child %s/%d pid %d exited (%s), policy %s", at, x.group(), x.index(),
                    x.pid(), x.signal() > 0 ? "by " + SignalNames.name(x.signal()) + " (" + x.signal() + ")"
                            : "exit " + x.exitCode(), x.policy());
        }
        if (e instanceof ChildRestarted r) {
            return String.format(ReplayText.NUMBERS, "%s  child %s/%d restarted: pid %d -> %d after a backoff of %s (restart %d"
                    + " within %s, at most %d)", at, r.group(), r.index(), r.oldPid(), r.newPid(), seconds(r.backoffNanos()),
                    r.restartsInPeriod(), seconds(r.periodNanos()), r.maxRestarts());
        }
        if (e instanceof PoolFailed f) {
            return at + "  pool failed (close " + f.closeId() + "): " + f.reason();
        }
        return at + "  " + e.type();
    }

    private static String liveAgreement(RebuiltClose rc, CloseOutcome rebuilt) {
        CloseOutcome live;
        try {
            live = rc.liveReport();
        } catch (ReplayInputException unreadable) {
            return "UNREADABLE: " + unreadable.getMessage();
        }
        List<String> diffs = rebuilt.differencesFrom(live);
        return diffs.isEmpty() ? live.outcome() + ", agrees with the journal"
                : live.outcome() + ", DIFFERS from the journal: " + String.join("; ", diffs);
    }

    private static void printChild(ChildHistory ch, long t0, boolean endedByDeath, PrintStream out) {
        ChildOutcome o = ch.outcome();
        out.printf(ReplayText.NUMBERS, "child %s  pid %d  kind %s  outcome %s  exit %d  signal %d%n", ch.key(), ch.pid(),
                ch.kind(), o.outcome(), o.exitCode(), o.signal());
        MailboxTransition start = ch.stateAtStart();
        out.println("  state at close start: " + (start == null ? "unknown (no transition journaled)"
                : MailboxStates.name(start.toState()) + " (seq " + start.seq() + ", " + start.writer() + " pid "
                        + start.writerPid() + " at " + CloseVerdict.at(start.timeNanos(), t0) + ")"));
        ShutdownPublished p = ch.published();
        out.println("  shutdown published: " + (p == null ? "never" : CloseVerdict.at(p.timeNanos(), t0) + " ("
                + p.channel() + " epoch " + p.epoch() + ", " + (p.casWon() ? "CAS won" : "CAS lost, word was " + p.observedWord())
                + ")"));
        out.println("  acked: " + (ch.acked() == null ? "never" : CloseVerdict.at(CloseVerdict.ackTime(ch.acked()), t0)));
        ChildReaped r = ch.reaped();
        out.println("  reaped: " + (r == null ? "never" : CloseVerdict.at(r.timeNanos(), t0)
                + (r.timeNanos() < t0 ? " (exited before the close began)"
                        : r.sinceBroadcastNanos() >= 0 ? " (" + seconds(r.sinceBroadcastNanos()) + " after broadcast)" : "")
                + (r.signal() > 0 ? " by " + SignalNames.name(r.signal()) + " (" + r.signal() + ")" : " exit " + r.exitCode())));
        if (!ch.escalations().isEmpty()) {
            List<String> sent = new java.util.ArrayList<>();
            for (var e : ch.escalations()) {
                sent.add(SignalNames.name(e.signal()) + " to " + e.target() + " at " + CloseVerdict.at(e.timeNanos(), t0));
            }
            out.println("  escalation: " + String.join(", then ", sent) + "; " + CloseVerdict.ending(ch));
        }
        out.println("  mailbox released: " + (ch.released() == null ? "no" : CloseVerdict.at(ch.released().timeNanos(), t0)));
        if (ch.finalWords() != null) {
            out.println("  map file: " + ch.finalWords().describe());
        } else if (ch.mapNote() != null) {
            out.println("  map file: " + ch.mapNote());
        }
        out.println("  diagnosis: " + (ch.diagnosed() == null ? "none" : ch.diagnosed().diagnosis() + " at "
                + CloseVerdict.at(ch.diagnosed().timeNanos(), t0) + ": " + ch.diagnosed().evidence()));
        if (o.failsTheClose()) {
            out.println("  cause: " + CloseVerdict.cause(ch, t0));
        }
        String[] advice = CloseVerdict.causeAndNextStep(ch, endedByDeath);
        if (advice != null) {
            out.println("  class: " + advice[0]);
            out.println("  next: " + advice[1]);
        }
        if (ch.stderrTail() != null) {
            out.println("  stderr (last lines, " + ch.stderrTail().file() + "):");
            for (String line : ch.stderrTail().tail().split("\n")) {
                out.println("    | " + line);
            }
        }
        if (ch.stacks() != null) {
            out.println("  stacks: " + ch.stacks().summary() + " (captured at "
                    + CloseVerdict.at(ch.stacks().timeNanos(), t0) + ")");
            for (String line : ch.stacks().stacks().strip().split("\n")) {
                if (!line.isBlank()) {
                    out.println("    | " + line);
                }
            }
        }
        if (ch.transitions().isEmpty()) {
            out.println("  state word during the close: no transitions");
            return;
        }
        out.println("  state word during the close:");
        out.printf(ReplayText.NUMBERS, "    %6s  %10s  %-15s  %-15s  %-6s  %7s%n", "seq", "time", "from", "to", "writer", "pid");
        for (MailboxTransition t : ch.transitions()) {
            out.printf(ReplayText.NUMBERS, "    %6d  %10s  %-15s  %-15s  %-6s  %7d%s%s%n", t.seq(),
                    CloseVerdict.at(t.timeNanos(), t0), MailboxStates.name(t.fromState()), MailboxStates.name(t.toState()),
                    t.writer(), t.writerPid(), t.orchestratorPid() == 0 ? "  (from the map file's ring)" : "",
                    t == ch.shutdownOverwrite() ? "  <- SHUTDOWN overwritten" : "");
        }
    }

    private static String seconds(long nanos) {
        return String.format(ReplayText.NUMBERS, "%.3f s", nanos / 1e9);
    }

    static ObjectNode toJson(RebuiltClose rc) {
        ObjectNode n = JsonEvents.mapper().createObjectNode();
        n.put("closeId", rc.closeId()).put("poolId", rc.poolId()).put("protocolMode", rc.protocolMode())
                .put("complete", rc.isComplete()).put("verdict", CloseVerdict.of(rc));
        if (rc.aborted() != null) {
            n.put("aborted", rc.aborted().reason());
        }
        if (rc.inProgressBy() > 0) {
            n.put("inProgressBy", rc.inProgressBy());
        }
        ArrayNode classes = n.putArray("classes");
        CloseVerdict.failureClasses(rc).forEach(classes::add);
        CloseOutcome rebuilt = rc.outcome();
        n.set("rebuilt", JsonEvents.mapper().valueToTree(rebuilt));
        if (rc.isComplete()) {
            try {
                CloseOutcome live = rc.liveReport();
                n.set("live", JsonEvents.mapper().valueToTree(live));
                ArrayNode diffs = n.putArray("differences");
                rebuilt.differencesFrom(live).forEach(diffs::add);
            } catch (ReplayInputException unreadable) {
                n.put("liveUnreadable", unreadable.getMessage());
            }
        }
        n.set("closeStarted", event(rc.started()));
        ArrayNode run = n.putArray("runEvents");
        rc.runEvents().forEach(e -> run.add(event(e)));
        n.put("runEventsDropped", rc.runEventsDropped());
        ArrayNode children = n.putArray("children");
        for (ChildHistory ch : rc.children()) {
            ObjectNode cn = children.addObject();
            cn.put("group", ch.key().group()).put("index", ch.key().index()).put("pid", ch.pid()).put("kind", ch.kind());
            cn.set("outcome", JsonEvents.mapper().valueToTree(ch.outcome()));
            cn.set("stateAtStart", event(ch.stateAtStart()));
            cn.set("published", event(ch.published()));
            cn.set("acked", event(ch.acked()));
            cn.set("reaped", event(ch.reaped()));
            cn.set("escalation", event(ch.escalation()));
            ArrayNode esc = cn.putArray("escalations");
            ch.escalations().forEach(e -> esc.add(event(e)));
            cn.set("diagnosed", event(ch.diagnosed()));
            cn.set("stacks", event(ch.stacks()));
            cn.set("stderrTail", event(ch.stderrTail()));
            cn.set("released", event(ch.released()));
            cn.set("shutdownOverwrite", event(ch.shutdownOverwrite()));
            cn.set("finalWords", JsonEvents.mapper().valueToTree(ch.finalWords()));
            if (ch.mapNote() != null) {
                cn.put("mapNote", ch.mapNote());
            }
            ArrayNode ts = cn.putArray("transitions");
            ch.transitions().forEach(t -> ts.add(event(t)));
        }
        ArrayNode strays = n.putArray("strays");
        rc.strays().forEach(st -> strays.add(event(st)));
        ArrayNode escapes = n.putArray("escapes");
        rc.escapes().forEach(x -> escapes.add(event(x)));
        ArrayNode kills = n.putArray("containerKills");
        rc.kills().forEach(k -> kills.add(event(k)));
        n.set("escalateNow", event(rc.escalateNow()));
        n.set("closeCompleted", event(rc.completed()));
        return n;
    }

    private static JsonNode event(JournalEvent e) {
        if (e == null) {
            return JsonEvents.mapper().nullNode();
        }
        try {
            return JsonEvents.mapper().readTree(JsonEvents.toJson(e));
        } catch (java.io.IOException impossible) {
            throw new IllegalStateException("event=" + e.type() + " JSON unreadable", impossible);
        }
    }
}
