package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** closes, stats, export and tail, called as work methods and through the CLI. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    @Test
    void closesListsEveryCloseWithItsOutcome() throws Exception {
        Scenarios.retried(tmp);
        CliRun run = CliRun.of("closes", "--json", tmp.toString());
        assertEquals(0, run.exit(), run::toString);
        List<String> lines = run.out().lines().toList();
        assertEquals(2, lines.size());
        JsonNode first = JSON.readTree(lines.get(0));
        assertEquals("FAILED", first.get("outcome").asText());
        assertEquals(1, first.get("survivors").asInt());
        assertEquals("CLEAN", JSON.readTree(lines.get(1)).get("outcome").asText());
    }

    @Test
    void statsGivesReapLatencyPerCloseOverallAndBySplit() throws Exception {
        Scenarios.clean(tmp);
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        assertEquals(0, StatsCommand.run(tmp, true, false, new PrintStream(buf, true, StandardCharsets.UTF_8)));
        List<JsonNode> lines = buf.toString(StandardCharsets.UTF_8).lines().map(l -> {
            try {
                return JSON.readTree(l);
            } catch (Exception e) {
                throw new AssertionError(l, e);
            }
        }).toList();
        JsonNode overall = lines.stream().filter(n -> n.get("type").asText().equals("overall")).findFirst().orElseThrow();
        assertEquals(4, overall.get("reaps").asLong());
        // the clean scenario reaps at about 0.198, 1.41, 1.60 and 1.62 s after the broadcast
        assertEquals(0.198, overall.get("minNanos").asLong() / 1e9, 0.01);
        assertTrue(overall.get("maxNanos").asLong() / 1e9 > 1.5);
        assertTrue(lines.stream().anyMatch(n -> n.get("type").asText().equals("groupSize") && n.get("groupSize").asInt() == 3));
        assertTrue(lines.stream().anyMatch(n -> n.get("type").asText().equals("overlap")));
        CliRun text = CliRun.of("stats", tmp.toString());
        assertTrue(text.out().contains("group size 3") && text.out().contains("overlapping closes 0"), text::toString);
    }

    /**
     * The broadcast-to-kill times of children killed by escalation are counted as {@code kills} in the JSON, as the
     * text's "kills" column does: its "killed" object used to count them in a field named {@code reaps}.
     */
    @Test
    void statsJsonCountsKillsAsKillsNotAsReaps() throws Exception {
        Scenarios.survivors(tmp); // one close escalated: one child killed by SIGKILL after the grace
        CliRun run = CliRun.of("stats", "--json", tmp.toString());
        assertEquals(0, run.exit(), run::toString);
        JsonNode killed = run.out().lines().map(l -> {
            try {
                return JSON.readTree(l);
            } catch (java.io.IOException e) {
                throw new AssertionError(l, e);
            }
        }).filter(n -> n.get("type").asText().equals("killed")).findFirst().orElseThrow(() -> new AssertionError(run));
        assertEquals(1, killed.path("kills").asLong(-1), killed::toString);
        assertTrue(killed.path("reaps").isMissingNode(), killed::toString);
        assertEquals(15.0, killed.get("maxNanos").asLong() / 1e9, 0.2, killed::toString); // window 10 s + grace 5 s
    }

    /**
     * "overlapping closes" counts the other closes in flight: the engine journals every close in flight, itself
     * included, and show, stats and closes (text and JSON) used to print that as the overlap, so a close alone read
     * as overlapping one other. Three closes started one after another, each while the ones before are in flight.
     */
    @Test
    void overlappingClosesCountTheOthersNotTheCloseItself() throws Exception {
        Scenarios.overlapping(tmp);
        for (long close = 1; close <= 3; close++) {
            CliRun show = CliRun.of("show", tmp.toString(), Long.toString(close));
            assertTrue(show.out().lines().findFirst().orElse("").endsWith("overlapping closes " + (close - 1)), show::toString);
        }
        CliRun closes = CliRun.of("closes", tmp.toString(), "--json");
        List<Integer> others = closes.out().lines().map(l -> {
            try {
                return new ObjectMapper().readTree(l).get("otherClosesInFlight").asInt();
            } catch (java.io.IOException e) {
                throw new AssertionError(l, e);
            }
        }).sorted().toList();
        assertEquals(List.of(0, 1, 2), others, closes::toString);
        CliRun stats = CliRun.of("stats", tmp.toString());
        assertTrue(stats.out().contains("overlapping closes 0") && stats.out().contains("overlapping closes 2")
                && !stats.out().contains("overlapping closes 3"), stats::toString);
    }

    /** A journal in tmp: pool p of {@code children} in {@code group}, its close 1 broadcast, then ended by its orchestrator's death. */
    private void closeEndedByDeath(String group, int children) {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            j.pool("p", "sticky", group, children).close(Scenarios.LEAK, 0).broadcast();
            j.append(new dev.vigil.journal.CloseEndedByOrchestratorDeath(j.now(), 4242, "p", 1, 4241, "pid 1 pid 2"));
        }
    }

    /**
     * The outcome column of closes is as wide as its longest outcome: ORCHESTRATOR_DIED (17 characters) overflowed the
     * 10 it had, and its row's counts stood 7 columns right of the header's.
     */
    @Test
    void theOutcomeColumnHoldsOrchestratorDied() {
        closeEndedByDeath("chips", 2);
        List<String> lines = CliRun.of("closes", tmp.toString()).out().lines().toList();
        String header = lines.get(0);
        String died = lines.stream().filter(l -> l.contains("ORCHESTRATOR_DIED")).findFirst().orElseThrow();
        assertEquals(header.length(), died.length(), "every column where the header has it:\n" + String.join("\n", lines));
    }

    /**
     * show of a close of 300 children its orchestrator's death ended: the summary lines name the count and the first
     * few (every child keeps its block below). Before, the header, the verdict and the classes each listed all 300 in
     * one line of 10-20 KB ("pid N not reaped and not diagnosed by the close's end" 300 times).
     */
    @Test
    void showOfAHundredsChildCloseEndedByDeathKeepsItsSummaryLinesShort() {
        closeEndedByDeath("jvms", 300);
        CliRun show = CliRun.of("show", tmp.toString(), "1");
        List<String> lines = show.out().lines().toList();
        String verdict = lines.stream().filter(l -> l.startsWith("verdict: ")).findFirst().orElseThrow(() -> new AssertionError(show.toString()));
        assertTrue(verdict.contains("ORCHESTRATOR_DIED") && verdict.contains("300 of 300 child(ren) neither reaped nor diagnosed"
                + " when the orchestrator died") && verdict.endsWith(" and 290 more"), verdict);
        assertTrue(lines.get(1).contains("(unreaped then: 300: jvms/0 pid "), lines.get(1));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("classes: ORCHESTRATOR_DIED x300 (")), show::toString);
        for (String l : lines.subList(0, 4)) {
            assertTrue(l.length() < 500, l.length() + " characters: " + l.substring(0, Math.min(300, l.length())));
        }
        assertEquals(300, lines.stream().filter(l -> l.startsWith("child jvms/")).count(), "every child its own block");
    }

    @Test
    void exportWritesEveryEventAsAStrictJsonLineWithItsJournalIndexAndItsChildIndexApart() throws Exception {
        Scenarios.legacyRace(tmp);
        CliRun run = CliRun.of("export", tmp.toString());
        assertEquals(0, run.exit(), run::toString);
        List<String> lines = run.out().lines().toList();
        assertEquals(61, lines.size());
        com.fasterxml.jackson.databind.ObjectMapper strict = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        long previous = -1;
        int childEvents = 0;
        for (String line : lines) {
            JsonNode n = strict.readTree(line); // a duplicate key fails here
            long journalIndex = n.get("journalIndex").asLong();
            assertTrue(journalIndex > previous, "journal indexes increase: " + line);
            previous = journalIndex;
            assertEquals(n.get("event").asText(), dev.vigil.journal.JsonEvents.fromJson(line).getClass().getSimpleName());
            if (n.has("group")) {
                childEvents++;
                assertTrue(n.get("index").asInt() >= 0 && n.get("index").asInt() < 3, "the child's index: " + line);
            }
        }
        assertTrue(childEvents > 10, "child events carry both indexes");
        JsonNode last = JSON.readTree(lines.get(lines.size() - 1));
        assertEquals("CloseCompleted", last.get("event").asText());
    }

    /**
     * The same run journaled with its transitions packed (MailboxTransitionBatch, as the ring drainer writes them) exports
     * and tails line for line as the journal of one event per transition: one MailboxTransition object per transition,
     * with the batch's journal index and its position in the batch.
     */
    @Test
    void exportAndTailListAPackedTransitionAsTheSingleEventWouldBe() throws Exception {
        Scenarios.legacyRace(tmp.resolve("single"));
        Scenarios.legacyRace(tmp.resolve("packed"), true);
        List<String> single = CliRun.of("export", tmp.resolve("single").toString()).out().lines().toList();
        CliRun packedRun = CliRun.of("export", tmp.resolve("packed").toString());
        assertEquals(0, packedRun.exit(), packedRun::toString);
        List<String> packed = packedRun.out().lines().toList();
        assertEquals(single.size(), packed.size(), packedRun::toString);
        com.fasterxml.jackson.databind.ObjectMapper strict = new com.fasterxml.jackson.databind.ObjectMapper()
                .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        long[] previous = {-1, -1};
        int inBatches = 0;
        for (int i = 0; i < packed.size(); i++) {
            com.fasterxml.jackson.databind.node.ObjectNode p = (com.fasterxml.jackson.databind.node.ObjectNode) strict.readTree(packed.get(i));
            com.fasterxml.jackson.databind.node.ObjectNode s = (com.fasterxml.jackson.databind.node.ObjectNode) strict.readTree(single.get(i));
            long index = p.remove("journalIndex").asLong();
            long position = p.has("position") ? p.remove("position").asLong() : -1;
            assertTrue(index > previous[0] || index == previous[0] && position == previous[1] + 1,
                    "a batch's transitions follow each other at positions 0, 1, ...: " + packed.get(i));
            previous[0] = index;
            previous[1] = position;
            inBatches += position >= 0 ? 1 : 0;
            s.remove("journalIndex");
            assertEquals(s, p, "line " + i);
        }
        assertTrue(inBatches > 20, "the transitions came from batches: " + inBatches);
        assertEquals(CliRun.of("tail", tmp.resolve("single").toString(), "--from-start", "--idle-exit", "0.2").out(),
                CliRun.of("tail", tmp.resolve("packed").toString(), "--from-start", "--idle-exit", "0.2").out());
    }

    @Test
    void tailPrintsOneReadableLinePerEventAndFollowsAppends() throws Exception {
        Scenarios.legacyRace(tmp);
        CliRun run = CliRun.of("tail", tmp.toString(), "--from-start", "--idle-exit", "0.3");
        assertEquals(0, run.exit(), run::toString);
        List<String> lines = run.out().lines().toList();
        assertEquals(61, lines.size());
        assertTrue(lines.stream().anyMatch(l -> l.contains("MailboxTransition pool=p-legacy close=0 group=chips index=2 seq=16 "
                + "fromState=CONTROL_REQUEST toState=CONTROL_DONE writer=CHILD writerPid=4711")), run::toString);
        CliRun limited = CliRun.of("tail", tmp.toString(), "--from-start", "--limit", "5");
        assertEquals(5, limited.out().lines().count(), limited::toString);
        CliRun asJson = CliRun.of("tail", tmp.toString(), "--from-start", "--limit", "2", "--json");
        assertEquals("ChildSpawned", JSON.readTree(asJson.out().lines().findFirst().orElseThrow()).get("event").asText());
        CliRun onlyNew = CliRun.of("tail", tmp.toString(), "--idle-exit", "0.2");
        assertEquals("", onlyNew.out(), "without --from-start only new events are printed");
    }

    @Test
    void showAsJsonCarriesTheRebuiltAndLiveReportsAndTheHistory() throws Exception {
        Scenarios.legacyRace(tmp);
        CliRun run = CliRun.of("show", "--json", tmp.toString(), "1");
        JsonNode n = JSON.readTree(run.out());
        assertEquals("FAILED", n.get("rebuilt").get("outcome").asText());
        assertEquals(0, n.get("differences").size());
        assertEquals(2, n.get("children").get(2).get("transitions").size());
        assertTrue(n.get("verdict").asText().contains("SHUTDOWN overwritten"));
    }

    /** The launcher leaves out picocli's java.time and java.sql converters (ReplayCli.excludeUnusedConverters). */
    @Test
    void noOptionNeedsAConverterTheLauncherLeavesOut() {
        picocli.CommandLine cl = ReplayCli.commandLine(new ReplayCli());
        List<picocli.CommandLine.Model.ArgSpec> args = new java.util.ArrayList<>();
        for (picocli.CommandLine sub : cl.getSubcommands().values()) {
            args.addAll(sub.getCommandSpec().args());
        }
        args.addAll(cl.getCommandSpec().args());
        assertTrue(args.size() > 20, "every subcommand's options: " + args.size());
        for (picocli.CommandLine.Model.ArgSpec a : args) {
            List<Class<?>> types = new java.util.ArrayList<>(List.of(a.type()));
            types.addAll(List.of(a.auxiliaryTypes()));
            for (Class<?> type : types) {
                assertTrue(!type.getName().matches(ReplayCli.UNUSED_CONVERTER_TYPES),
                        a.command().qualifiedName() + " " + a.paramLabel() + " is a " + type.getName());
            }
        }
    }
}
