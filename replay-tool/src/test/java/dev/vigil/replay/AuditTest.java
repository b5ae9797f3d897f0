package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.journal.CloseAborted;
import dev.vigil.journal.MailboxReleased;

/** audit finds each kind of broken invariant, and passes journals that keep them all. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AuditTest {
    @TempDir
    Path tmp;

    private CliRun audit() {
        return CliRun.of("audit", tmp.toString());
    }

    @Test
    void findsTheLostUpdateInALegacyJournalOfTheRace() {
        Scenarios.legacyRace(tmp);
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertTrue(run.out().contains("VIOLATION LOST_UPDATE"), run::toString);
        assertTrue(run.out().contains("both writers computed seq 16 from the same read"), run::toString);
        assertTrue(run.out().contains("SHUTDOWN overwritten by child pid 4711 CONTROL_DONE at seq 16"), run::toString);
    }

    @Test
    void aCloseAbortedInsideTheOrchestratorEndsThereAndIsAViolationNamingItsFailure() {
        long closeId;
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p-aborted", "sticky", "chips", 2);
            ScenarioJournal.Close close = p.close(Scenarios.LEAK, 0).broadcast();
            close.exits(p.child(0), 5, 0);
            j.advanceMillis(3);
            closeId = close.closeId;
            j.append(new CloseAborted(j.now(), ScenarioJournal.ORCHESTRATOR_PID, "p-aborted", closeId,
                    "long overflow", 1));
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertTrue(run.out().contains("VIOLATION CLOSE_ABORTED"), run::toString);
        assertTrue(run.out().contains("with 1 child(ren) not reaped: long overflow"), run::toString);
        assertFalse(run.out().contains("CLOSE_NOT_COMPLETED"), "ended by its CloseAborted, not left open: " + run);
        CliRun closes = CliRun.of("closes", tmp.toString());
        assertTrue(closes.out().contains("ABORTED"), closes::toString);
        CliRun show = CliRun.of("show", tmp.toString(), Long.toString(closeId));
        assertEquals(0, show.exit(), show::toString);
        assertTrue(show.out().contains("ABORTED (the close failed inside the orchestrator: long overflow; its 1 unreaped"),
                show::toString);
    }

    /**
     * A child found outside its pool's cgroup (ContainmentEscaped) fails its close in the replay as in the live report
     * (no REPORT_MISMATCH), is a violation of its own (what it forked outside its parentage may live on) and show names
     * the cgroup it went to and the descendants killed with it.
     */
    @Test
    void aChildThatEscapedItsCgroupIsAViolationAndShowNamesWhereItWent() {
        long closeId;
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p-escape", "sticky", "movers", 1);
            ScenarioJournal.Close close = p.close(Scenarios.LEAK, 0).broadcast();
            closeId = close.closeId;
            ScenarioJournal.Child c = p.child(0);
            j.append(new dev.vigil.journal.ContainmentEscaped(j.now(), ScenarioJournal.ORCHESTRATOR_PID, "p-escape",
                    closeId, c.group, c.index, c.pid, "/sys/fs/cgroup/elsewhere", "4801,4802"));
            j.advanceMillis(1);
            close.reap(c, 0, 9);
            CloseOutcome r = close.report();
            close.appendCompleted(new CloseOutcome(r.poolId(), r.closeId(), CloseOutcome.FAILED, r.durationNanos(),
                    r.children()));
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertTrue(run.out().contains("VIOLATION CONTAINMENT_ESCAPED"), run::toString);
        assertTrue(run.out().contains("had left the pool's cgroup for /sys/fs/cgroup/elsewhere: killed with its"
                + " descendants 4801,4802"), run::toString);
        assertFalse(run.out().contains("REPORT_MISMATCH"), run::toString);
        assertTrue(run.out().contains("1 FAILED"), run::toString);
        CliRun show = CliRun.of("show", tmp.toString(), Long.toString(closeId));
        assertEquals(0, show.exit(), show::toString);
        assertTrue(show.out().contains("verdict: FAILED: pid "), show::toString);
        assertTrue(show.out().contains("CONTAINMENT_ESCAPED"), show::toString);
        assertTrue(show.out().contains("escape at +"), show::toString);
    }

    @Test
    void passesTheStickyJournalOfTheSameWorkload() {
        Scenarios.stickyNoRace(tmp);
        CliRun run = audit();
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().endsWith("result: CLEAN\n"), run::toString);
    }

    @Test
    void passesJournalsWithSurvivorsEscalationsRetriesAndOverlaps() {
        Scenarios.survivors(tmp.resolve("a"));
        Scenarios.retried(tmp.resolve("b"));
        Scenarios.overlapping(tmp.resolve("c"));
        Scenarios.clean(tmp.resolve("d"));
        for (String d : new String[] {"a", "b", "c", "d"}) {
            CliRun run = CliRun.of("audit", tmp.resolve(d).toString());
            assertEquals(0, run.exit(), run::toString);
        }
    }

    @Test
    void aSeqGapIsAViolationUnlessARingOverrunExplainsIt() {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 2);
            p.child(0).overrun(5);
            p.task(p.child(0), 1);
            p.child(1).seq += 3; // lost without an overrun record
            p.task(p.child(1), 1);
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        List<String> violations = violationLinesBesidesTheUnclosedPool(run);
        assertEquals(1, violations.size(), run::toString);
        assertTrue(violations.get(0).contains("SEQ_GAP") && violations.get(0).contains("chips/1")
                && violations.get(0).contains("seq 3..5 missing"), run::toString);
    }

    /**
     * Transitions packed in one MailboxTransitionBatch (as the ring drainer journals them): a lost update at position 4 of
     * a batch is cited by the batch's journal index and that position, and export lists exactly that transition there.
     */
    @Test
    void aLostUpdateInsideAPackedBatchIsCitedByTheBatchsIndexAndItsPositionInIt() throws Exception {
        try (ScenarioJournal j = new ScenarioJournal(tmp, 4700, true)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 1);
            ScenarioJournal.Child c = p.child(0);
            p.task(c, 1); // positions 0-2 of the batch
            c.transition("PARENT", ScenarioJournal.ORCHESTRATOR_PID, MailboxStates.TASK_READY); // 3
            c.transitionAt(++c.seq, MailboxStates.IDLE, "CHILD", c.pid, MailboxStates.TASK_DONE); // 4: read IDLE, not TASK_READY
            c.state = MailboxStates.TASK_DONE;
            c.transition("PARENT", ScenarioJournal.ORCHESTRATOR_PID, MailboxStates.IDLE); // 5
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        List<String> violations = violationLinesBesidesTheUnclosedPool(run);
        assertEquals(1, violations.size(), run::toString);
        assertTrue(violations.get(0).contains("LOST_UPDATE") && violations.get(0).contains(" position 4 "), run::toString);

        CliRun json = CliRun.of("audit", "--json", tmp.toString());
        com.fasterxml.jackson.databind.JsonNode v = dev.vigil.journal.JsonEvents.mapper().readTree(json.out().lines()
                .filter(l -> l.contains("\"rule\"") && l.contains("LOST_UPDATE")).findFirst().orElseThrow());
        assertEquals(4, v.path("position").asInt(-1), json::toString);
        CliRun export = CliRun.of("export", tmp.toString());
        List<com.fasterxml.jackson.databind.JsonNode> cited = new ArrayList<>();
        for (String line : export.out().split("\n")) {
            com.fasterxml.jackson.databind.JsonNode n = dev.vigil.journal.JsonEvents.mapper().readTree(line);
            if (n.path("journalIndex").asLong() == v.path("index").asLong() && n.has("position")
                    && n.path("position").asInt() == v.path("position").asInt()) {
                cited.add(n);
            }
        }
        assertEquals(1, cited.size(), export::toString);
        assertEquals("MailboxTransition", cited.get(0).path("event").asText());
        assertEquals("IDLE", MailboxStates.name(cited.get(0).path("fromState").asInt()));
        assertEquals("CHILD", cited.get(0).path("writer").asText());
        assertTrue(v.path("evidence").asText().startsWith("seq " + cited.get(0).path("seq").asLong() + " "), json::toString);
    }

    @Test
    void aMailboxReleasedBeforeItsReapIsAViolation() {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 2);
            ScenarioJournal.Close c = p.close(Scenarios.LEAK, 0).broadcast();
            j.append(new MailboxReleased(j.now(), ScenarioJournal.ORCHESTRATOR_PID, "p", c.closeId, "chips", 1, 4096));
            c.exits(p.child(0), 10, 0);
            c.exits(p.child(1), 10, 0);
            c.appendCompleted(c.report());
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        List<String> violations = violationLines(run);
        assertEquals(1, violations.size(), run::toString);
        assertTrue(violations.get(0).contains("RELEASED_BEFORE_REAP") && violations.get(0).contains("pid 4701"),
                run::toString);
    }

    @Test
    void aLiveReportThatDisagreesWithTheJournalIsAViolation() {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 2);
            ScenarioJournal.Close c = p.close(Scenarios.LEAK, 0).broadcast();
            c.exits(p.child(0), 10, 0);
            c.exits(p.child(1), 10, 0);
            CloseOutcome honest = c.report();
            ChildOutcome reaped = honest.children().get(1);
            ChildOutcome claimedSurvivor = new ChildOutcome(reaped.group(), reaped.index(), reaped.pid(), reaped.kind(),
                    ChildOutcome.SURVIVOR, -1, 0, -1, "WEDGED", "pid=4701");
            c.appendCompleted(new CloseOutcome("p", c.closeId, CloseOutcome.FAILED, honest.durationNanos(),
                    List.of(honest.children().get(0), claimedSurvivor)));
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertTrue(run.out().contains("REPORT_MISMATCH") && run.out().contains("outcome rebuilt=CLEAN live=FAILED"),
                run::toString);
        CliRun show = CliRun.of("show", tmp.toString(), "1");
        assertTrue(show.out().contains("live report: FAILED, DIFFERS from the journal"), show::toString);
    }

    /**
     * A child that exited during the run is reaped by the next close with 0 since the broadcast (the engine's
     * sinceBroadcast is never negative): show said "0.000 s after broadcast" for a child no broadcast reached.
     */
    @Test
    void aChildThatExitedBeforeTheCloseIsNotShownAsReapedAfterItsBroadcast() {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 2);
            ScenarioJournal.Close c = p.close(Scenarios.LEAK, 0);
            c.reapedBeforeStart(p.child(0), 35, 3);
            c.broadcast();
            c.exits(p.child(1), 10, 0);
            c.complete();
        }
        CliRun show = CliRun.of("show", tmp.toString(), "1");
        assertEquals(0, show.exit(), show::toString);
        assertTrue(show.out().contains("reaped: -0.035 s (exited before the close began) exit 3"), show::toString);
        assertTrue(show.out().contains("after broadcast) exit 0"), show::toString);
        assertFalse(show.out().contains("0.000 s after broadcast"), show::toString);
        // stats times only the child a broadcast reached (10 ms after it); the other read as a latency of 0 before
        CliRun stats = CliRun.of("stats", "--json", tmp.toString());
        assertEquals(0, stats.exit(), stats::toString);
        String close = stats.out().lines().filter(l -> l.contains("\"type\":\"close\"")).findFirst().orElseThrow();
        assertTrue(close.contains("\"reaps\":1,") && !close.contains("\"minNanos\":0,"), close);
    }

    @Test
    void aCloseTheJournalEndsInsideIsReported() {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 2);
            ScenarioJournal.Close c = p.close(Scenarios.LEAK, 0).broadcast();
            c.exits(p.child(0), 10, 0);
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertTrue(run.out().contains("CLOSE_NOT_COMPLETED") && run.out().contains("chips/1 pid 4701"), run::toString);
        CliRun show = CliRun.of("show", tmp.toString(), "1");
        assertEquals(0, show.exit(), show::toString);
        assertTrue(show.out().contains("verdict: INCOMPLETE"), show::toString);
    }

    /**
     * An orchestrator SIGKILLed before any close (the field's repro: 2 C children, 100,000 controls, kill -9 after 3 s)
     * left a journal that audit called CLEAN. Its children were spawned and never reaped, in no close: POOL_NOT_CLOSED
     * names them. Not once a later orchestrator's recovery is journaled (it ended every process of the dead one), nor
     * for a pool whose last close reported its survivors.
     */
    @Test
    void aPoolWhoseOrchestratorDiedOutsideACloseIsNamedUntilARecoveryEndsIt() {
        try (ScenarioJournal j = new ScenarioJournal(tmp)) {
            ScenarioJournal.Pool p = j.pool("p-crashed", "sticky", "chips", 2);
            p.task(p.child(0), 3);
            p.control(p.child(1));
        }
        CliRun run = audit();
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        List<String> violations = violationLines(run);
        assertEquals(1, violations.size(), run::toString);
        assertTrue(violations.get(0).contains("POOL_NOT_CLOSED") && violations.get(0).contains("pool p-crashed")
                && violations.get(0).contains("2 child(ren) spawned by orchestrator pid " + ScenarioJournal.ORCHESTRATOR_PID)
                && violations.get(0).contains("chips/0 pid") && violations.get(0).contains("chips/1 pid"), run::toString);

        try (ScenarioJournal j = new ScenarioJournal(tmp.resolve("recovered"))) {
            ScenarioJournal.Pool p = j.pool("p-crashed", "sticky", "chips", 2);
            p.task(p.child(0), 3);
            j.append(new dev.vigil.journal.OrchestratorDeathFound(j.now(), ScenarioJournal.ORCHESTRATOR_PID + 1, "", 0,
                    ScenarioJournal.ORCHESTRATOR_PID, 1234, 2, 1, 2, "guardian killed 2"));
        }
        CliRun recovered = CliRun.of("audit", tmp.resolve("recovered").toString());
        assertEquals(0, recovered.exit(), recovered::toString);

        // a second cycle of the same pool (bin/vigil run starts each cycle's pools under the same ids) after a first
        // close that reported a survivor, and the orchestrator died before the second close: the children of the
        // second cycle are not the survivor its report named, though they have the same group and index
        ScenarioJournal.Pool second;
        try (ScenarioJournal j = new ScenarioJournal(tmp.resolve("second-cycle"))) {
            ScenarioJournal.Pool first = j.pool("p-cycled", "sticky", "chips", 2);
            ScenarioJournal.Close close = first.close(Scenarios.LEAK, 0).broadcast();
            close.exits(first.child(0), 120, 0);
            close.ack(first.child(1));
            j.advanceMillis(10_000);
            close.diagnose(first.child(1), "FINALIZING", close.evidence(first.child(1), "FINALIZING", "set", "seen", "0.2s",
                    "R", "0"));
            close.complete();
            second = j.pool("p-cycled", "sticky", "chips", 2);
        }
        CliRun secondCycle = CliRun.of("audit", tmp.resolve("second-cycle").toString());
        assertEquals(AuditCommand.EXIT_VIOLATIONS, secondCycle.exit(), secondCycle::toString);
        assertTrue(secondCycle.out().contains("POOL_NOT_CLOSED") && secondCycle.out().contains("2 child(ren)")
                && secondCycle.out().contains("chips/0 pid " + second.child(0).pid)
                && secondCycle.out().contains("chips/1 pid " + second.child(1).pid), secondCycle::toString);
    }

    /**
     * A journal begun fresh after the one before it was set aside (its first event, JournalSetAside): audit and closes,
     * text and JSON, name the set-aside dir and the damage where it stands, and judge the fresh journal alone.
     */
    @Test
    void aJournalBegunFreshAfterASetAsideNamesTheDirWhereTheOlderHistoryIs() throws Exception {
        String aside = tmp.resolve("j.damaged-20261204T220558Z").toString();
        try (ScenarioJournal j = new ScenarioJournal(tmp.resolve("fresh"))) {
            j.append(new dev.vigil.journal.JournalSetAside(j.now(), ScenarioJournal.ORCHESTRATOR_PID, "", 0, aside,
                    "20261204F.cq4", 0x51370000000dL, 0x51370000000cL, "file=20261204F.cq4 index=0x51370000000d: the"
                            + " event's bytes do not match its checksum"));
            ScenarioJournal.Pool p = j.pool("p", "sticky", "chips", 1);
            ScenarioJournal.Close close = p.close(Scenarios.TERM_THEN_KILL, 0).broadcast();
            close.exits(p.child(0), 120, 0);
            close.complete();
        }
        String line = "journal begins fresh here: the journal before it was damaged (file=20261204F.cq4"
                + " index=0x51370000000d: the event's bytes do not match its checksum) and set aside as " + aside
                + "; the older history is there (vigil-replay audit " + aside + " reads it up to the damage, last good"
                + " index=0x51370000000c)";
        for (String command : List.of("audit", "closes")) {
            CliRun text = CliRun.of(command, tmp.resolve("fresh").toString());
            assertEquals(0, text.exit(), text::toString);
            assertTrue(text.out().lines().anyMatch(line::equals), text::toString);
            CliRun json = CliRun.of(command, "--json", tmp.resolve("fresh").toString());
            assertEquals(0, json.exit(), json::toString);
            assertTrue(json.out().lines().anyMatch(l -> l.startsWith("{\"journalSetAside\":\"" + aside + "\"")
                    && l.contains("\"lastGoodIndex\":" + 0x51370000000cL)), json::toString);
        }
    }

    /** The violations of a scenario that ends before any close, but for its POOL_NOT_CLOSED (tested on its own above). */
    private static List<String> violationLinesBesidesTheUnclosedPool(CliRun run) {
        List<String> out = violationLines(run);
        out.removeIf(l -> l.contains("POOL_NOT_CLOSED"));
        return out;
    }

    private static List<String> violationLines(CliRun run) {
        List<String> out = new ArrayList<>();
        run.out().lines().filter(l -> l.startsWith("VIOLATION")).forEach(out::add);
        return out;
    }
}
