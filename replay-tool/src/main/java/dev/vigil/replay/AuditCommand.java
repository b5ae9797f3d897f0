package dev.vigil.replay;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vigil.journal.JsonEvents;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/** {@code audit DIR}: checks the invariants of DESIGN section 8 over the whole history. */
public final class AuditCommand implements Callable<Integer> {
    /** Exit code when violations were found. */
    public static final int EXIT_VIOLATIONS = 1;
    /**
     * Exit code when nothing is violated so far but the journal is live: the orchestrator writing it was running
     * when the read began and some of its closes are still in progress (not judged: audit again once they end).
     */
    public static final int EXIT_IN_PROGRESS = 3;

    ReplayCli cli;
    Path dir;
    SourceOptions source;
    boolean json;
    Path map;

    /** The command line model of {@code audit}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        AuditCommand c = new AuditCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "audit", "Check every invariant over the whole journal.",
                "Check every invariant over the whole journal: each transition's from equals the previous",
                "to of its mailbox (no lost update), seq moves forward and gaps only where a ring overrun was",
                "journaled, no state write after shutdown except by the child, the shutdown written at most once,",
                "every child of a close reaped or reported as survivor, no mailbox released before its reap,",
                "and every rebuilt close outcome equal to the report the orchestrator produced live.",
                "Exit code 0: clean; 1: violations found; 2: unusable input; 3: no violation so far, but the",
                "orchestrator writing the journal still runs some close (in progress, not judged yet).");
        CommandModel.journalDir(spec, () -> c.dir, v -> c.dir = v);
        c.source = SourceOptions.addTo(spec);
        CommandModel.flag(spec, "--json", "one JSON object per violation, per line, then a summary object", () -> c.json,
                v -> c.json = v);
        spec.addOption(CommandModel.option(Path.class, "FILE", () -> c.map, v -> c.map = v, "--map").description(
                "the orchestrator's mailbox map file: also check the ring records"
                + " it never drained into the journal (post-mortem)").build());
        return spec;
    }

    @Override
    public Integer call() {
        if (map != null && source.fromKafka()) {
            throw new ReplayInputException("--map goes with a journal DIR, not --kafka");
        }
        return source.run(dir, json, cli.out, (s, out) -> run(s, json, map, out),
                worst -> worst == 0 ? "result: CLEAN" : worst == EXIT_IN_PROGRESS ? "result: CLEAN SO FAR" : "result: VIOLATIONS");
    }

    public static int run(Path dir, boolean json, PrintStream out) {
        return run(dir, json, null, out);
    }

    public static int run(Path dir, boolean json, Path mapFile, PrintStream out) {
        return run(new JournalDirectorySource(dir), json, mapFile, out);
    }

    /**
     * How many violations are held to be printed in time order; beyond it they are printed in batches, each in
     * time order (a journal that breaks an invariant on every event must not hold them all in memory).
     */
    static final int TIME_ORDER_BATCH = 100_000;

    public static int run(EventSource source, boolean json, Path mapFile, PrintStream out) {
        MailboxMapFile map = mapFile == null ? null : MailboxMapFile.open(mapFile);
        int live = source.liveOrchestratorPid(); // before the read: see CloseReconstruction.finish(int)
        long origin = source.firstEventTime();
        long[] counts = new long[5]; // violations, clean, failed, incomplete, in progress
        // The fold checks in journal (processing) order: coverage, seq gaps and overruns are facts of that order.
        // What it finds is reported in time order (the writers' own stamps: rings drain late).
        List<Violation> found = new ArrayList<>();
        CloseReconstruction fold = new CloseReconstruction(new CloseReconstruction.Listener() {
            @Override
            public void closeRebuilt(RebuiltClose close) {
                counts[close.inProgressBy() > 0 ? 4 : !close.isComplete() ? 3
                        : CloseOutcome.FAILED.equals(close.completed().outcome()) ? 2 : 1]++;
            }

            @Override
            public void journalSetAside(long index, dev.vigil.journal.JournalSetAside e) {
                out.println(json ? ReplayText.setAsideJson(e) : ReplayText.setAside(e));
            }

            @Override
            public void mapNote(String poolId, ChildKey child, String note) {
                if (json) {
                    out.println(JsonEvents.mapper().createObjectNode().put("mapFile", note).put("poolId", poolId)
                            .put("group", child.group()).put("index", child.index()));
                } else {
                    out.println("map file: mailbox " + poolId + " " + child + ": " + note);
                }
            }

            @Override
            public void violation(Violation v) {
                counts[0]++;
                found.add(v);
                if (found.size() >= TIME_ORDER_BATCH) {
                    printInTimeOrder(found, origin, json, out);
                }
            }
        }, 0);
        long events;
        try (map) {
            events = source.read(CloseReconstruction.KINDS, (i, e) -> {
                fold.accept(i, e);
                return true;
            });
            if (map != null) {
                fold.finishFromMap(map);
            }
        } catch (RuntimeException damage) {
            printInTimeOrder(found, origin, json, out); // damage ends the read: what was found before it is shown
            throw damage;
        }
        fold.finish(live);
        printInTimeOrder(found, origin, json, out);
        long closes = counts[1] + counts[2] + counts[3] + counts[4];
        if (json) {
            ObjectNode n = JsonEvents.mapper().createObjectNode();
            n.put("events", events).put("closes", closes).put("clean", counts[1]).put("failed", counts[2])
                    .put("incomplete", counts[3]).put("inProgress", counts[4]).put("violations", counts[0]);
            out.println(n);
        } else {
            out.printf(ReplayText.NUMBERS, "audit: %d events, %d closes (%d CLEAN, %d FAILED, %d incomplete%s), %d violations%n",
                    events, closes, counts[1], counts[2], counts[3], counts[4] == 0 ? "" : ", " + counts[4] + " in progress",
                    counts[0]);
            out.println(counts[0] != 0 ? "result: VIOLATIONS" : counts[4] == 0 ? "result: CLEAN"
                    : "result: CLEAN SO FAR (the journal is live: orchestrator pid " + live + " is still running "
                            + counts[4] + " close(s); audit again once they complete)");
        }
        return counts[0] != 0 ? EXIT_VIOLATIONS : counts[4] == 0 ? 0 : EXIT_IN_PROGRESS;
    }

    private static void printInTimeOrder(List<Violation> found, long origin, boolean json, PrintStream out) {
        found.sort(Comparator.comparingLong(Violation::timeNanos)); // stable: equal times in journal order
        for (Violation v : found) {
            print(v, origin, json, out);
        }
        found.clear();
    }

    private static void print(Violation v, long origin, boolean json, PrintStream out) {
        if (json) {
            ObjectNode n = JsonEvents.mapper().createObjectNode();
            n.put("rule", v.rule().name()).put("index", v.index());
            if (v.position() >= 0) {
                n.put("position", v.position());
            }
            n.put("timeNanos", v.timeNanos())
                    .put("offsetNanos", v.timeNanos() - origin).put("poolId", v.poolId()).put("closeId", v.closeId())
                    .put("where", v.where()).put("evidence", v.evidence());
            out.println(n);
        } else {
            out.printf(ReplayText.NUMBERS, "VIOLATION %s at %s %s pool %s close %d, %s: %s%n", v.rule(),
                    CloseVerdict.at(v.timeNanos(), origin), v.index() < 0 ? "in the map file's ring"
                            : "index 0x" + Long.toHexString(v.index()) + (v.position() < 0 ? "" : " position " + v.position()),
                    v.poolId(), v.closeId(), v.where(), v.evidence());
        }
    }
}
