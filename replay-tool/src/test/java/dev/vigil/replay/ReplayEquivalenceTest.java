package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.replay.internal.JournalScan;

/**
 * The property of DESIGN section 8: for every close, the outcome rebuilt from the journal equals
 * the CloseReport produced live. Journals are written by the real JournalWriter into real
 * directories, for every close shape (clean, each survivor class, escalated, retried, overlapping).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplayEquivalenceTest {
    @TempDir
    Path tmp;

    /** Rebuilds every close of the journal with one streaming fold. */
    static Map<Long, RebuiltClose> rebuildAll(Path dir) {
        Map<Long, RebuiltClose> out = new LinkedHashMap<>();
        CloseReconstruction fold = new CloseReconstruction(new CloseReconstruction.Listener() {
            @Override
            public void closeRebuilt(RebuiltClose close) {
                out.put(close.closeId(), close);
            }
        }, 0);
        JournalScan.readAll(dir, CloseReconstruction.KINDS, (i, e) -> {
            fold.accept(i, e);
            return true;
        });
        fold.finish();
        return out;
    }

    private static void assertEquivalent(Path dir, Map<Long, CloseOutcome> live) {
        Map<Long, RebuiltClose> rebuilt = rebuildAll(dir);
        assertEquals(live.keySet(), rebuilt.keySet(), "every close the orchestrator reported is rebuilt");
        for (Map.Entry<Long, CloseOutcome> e : live.entrySet()) {
            RebuiltClose rc = rebuilt.get(e.getKey());
            assertTrue(rc.isComplete());
            assertEquals(List.of(), rc.outcome().differencesFrom(e.getValue()), "close " + e.getKey());
            assertEquals(List.of(), rc.outcome().differencesFrom(rc.liveReport()), "close " + e.getKey() + " (journaled)");
            CliRun show = CliRun.of("show", dir.toString(), Long.toString(e.getKey()));
            assertEquals(0, show.exit(), show::toString);
            assertTrue(show.out().contains("agrees with the journal"), show::toString);
        }
    }

    private static Map<String, String> outcomesByChild(CloseOutcome o) {
        return o.children().stream().collect(Collectors.toMap(c -> c.key().toString(),
                c -> c.outcome() + (c.diagnosis() == null ? "" : "/" + c.diagnosis()), (x, y) -> x, LinkedHashMap::new));
    }

    @Test
    void aCleanCloseIsRebuiltAsReported() {
        Map<Long, CloseOutcome> live = Scenarios.clean(tmp);
        assertEquivalent(tmp, live);
        CloseOutcome o = rebuildAll(tmp).get(1L).outcome();
        assertEquals(CloseOutcome.CLEAN, o.outcome());
        assertEquals(Map.of("chips/0", "EXITED", "chips/1", "EXITED", "chips/2", "EXITED", "hosts/0", "SIGNALED"),
                outcomesByChild(o));
    }

    @Test
    void everySurvivorClassAndAnEscalatedCloseAreRebuiltAsReported() {
        Map<Long, CloseOutcome> live = Scenarios.survivors(tmp);
        assertEquivalent(tmp, live);
        Map<Long, RebuiltClose> rebuilt = rebuildAll(tmp);
        Function<Long, Map<String, String>> of = id -> outcomesByChild(rebuilt.get(id).outcome());
        assertEquals(Map.of("chips/0", "EXITED", "chips/1", "SURVIVOR/NOT_OBSERVED"), of.apply(1L));
        assertEquals(Map.of("chips/0", "EXITED", "chips/1", "SURVIVOR/WEDGED"), of.apply(2L));
        assertEquals(Map.of("chips/0", "SURVIVOR/FINALIZING"), of.apply(3L));
        assertEquals(Map.of("chips/0", "SURVIVOR/STOPPED"), of.apply(4L));
        assertEquals(Map.of("chips/0", "EXITED", "chips/1", "KILLED_BY_ESCALATION/WEDGED"), of.apply(5L));
        rebuilt.values().forEach(rc -> assertEquals(CloseOutcome.FAILED, rc.outcome().outcome()));
    }

    @Test
    void aRetriedCloseCoversOnlyTheSurvivorsStillTracked() {
        Map<Long, CloseOutcome> live = Scenarios.retried(tmp);
        assertEquivalent(tmp, live);
        Map<Long, RebuiltClose> rebuilt = rebuildAll(tmp);
        assertEquals(CloseOutcome.FAILED, rebuilt.get(1L).outcome().outcome());
        assertEquals(Map.of("chips/2", "EXITED"), outcomesByChild(rebuilt.get(2L).outcome()));
        assertEquals(CloseOutcome.CLEAN, rebuilt.get(2L).outcome().outcome());
    }

    @Test
    void overlappingClosesOfSeveralPoolsAreRebuiltAsReported() {
        Map<Long, CloseOutcome> live = Scenarios.overlapping(tmp);
        assertEquivalent(tmp, live);
        Map<Long, RebuiltClose> rebuilt = rebuildAll(tmp);
        assertEquals(4, rebuilt.get(1L).children().size());
        assertEquals("SURVIVOR/NOT_OBSERVED", outcomesByChild(rebuilt.get(2L).outcome()).get("chips/3"));
        assertEquals(3, rebuilt.get(3L).started().overlappingCloses(), "journaled: the closes in flight, itself included");
        assertEquals(2, rebuilt.get(3L).started().otherClosesInFlight());
    }

    @Test
    void theLegacyRaceIsRebuiltAsReportedAndTheVerdictNamesTheOverwrite() {
        Map<Long, CloseOutcome> live = Scenarios.legacyRace(tmp);
        assertEquivalent(tmp, live);
        RebuiltClose rc = rebuildAll(tmp).get(1L);
        ChildHistory racer = rc.children().get(2);
        assertEquals(4711, racer.pid());
        String verdict = CloseVerdict.of(rc);
        assertTrue(verdict.startsWith("FAILED: SHUTDOWN overwritten by child pid 4711 CONTROL_DONE at seq "
                + racer.shutdownOverwrite().seq()), verdict);
    }
}
