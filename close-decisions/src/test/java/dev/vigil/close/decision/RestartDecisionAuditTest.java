package dev.vigil.close.decision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;

import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildRestarted;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.PoolFailed;
import dev.vigil.journal.PoolStarted;

import org.junit.jupiter.api.Test;

/**
 * The restart decision (OTP's intensity) and its audit: the replay re-runs {@link RestartIntensity} over the journaled
 * exits and must agree with what the pool decided live; a journal whose inputs or decisions were changed, or a live
 * decision made by other code, is flagged.
 */
class RestartDecisionAuditTest {
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;

    @Test
    void theIntensityDecisionCountsRestartsInTheSlidingPeriodAndDoublesTheBackoff() {
        RestartIntensity i = new RestartIntensity(3, 10 * S, 100 * MS, 300 * MS);
        assertEquals(new RestartIntensity.Decision(true, 100 * MS, 1), i.onExit(0));
        assertEquals(new RestartIntensity.Decision(true, 200 * MS, 2), i.onExit(1 * S));
        assertEquals(new RestartIntensity.Decision(true, 300 * MS, 3), i.onExit(2 * S), "capped at maxBackoff");
        assertFalse(i.onExit(3 * S).restart(), "a 4th within 10 s crosses maxRestarts=3");
        // 10 s after the first, it leaves the period: one more fits.
        assertEquals(new RestartIntensity.Decision(true, 300 * MS, 3), i.onExit(10 * S));
        RestartIntensity none = new RestartIntensity(0, 1 * S, 0, 0);
        assertFalse(none.onExit(0).restart(), "maxRestarts=0: the first exit fails the pool");
    }

    @Test
    void thousandsOfLiveRunsReDeriveIdentically() {
        Random random = new Random(11);
        for (int run = 0; run < 2_000; run++) {
            List<JournalEvent> journal = liveRun(random, new RestartIntensity(1 + random.nextInt(4),
                    (1 + random.nextInt(10)) * S, random.nextInt(200) * MS, 1 * S));
            assertEquals(List.of(), audit(journal), "run " + run + " " + journal);
        }
    }

    @Test
    void aChangedExitTimeIsFlagged() {
        List<JournalEvent> journal = liveRun(new Random(3), new RestartIntensity(2, 60 * S, 100 * MS, 1 * S), 3);
        // The third exit crossed the intensity (2 within 60 s) and failed the pool. Moved 60 s later, the first exit has
        // left the period, so the replay restarts it: the journaled decision no longer follows.
        int[] exits = {0};
        assertFlagged(journal, e -> e instanceof ChildExited x && ++exits[0] == 3 ? withTime(x, x.timeNanos() + 60 * S) : e,
                "journaled fail the pool (it would be restart 3 within the period), re-derived restart ");
    }

    @Test
    void aLiveDecisionByOtherCodeIsFlagged() {
        // A broken live decision whose backoff never doubles (capped at 100 ms), journaled with the settings of the
        // policy it claims to run (maxBackoff 1 s): its second restart waits 100 ms where the rule says 200.
        RestartIntensity claimed = new RestartIntensity(5, 60 * S, 100 * MS, 1 * S);
        RestartIntensity broken = new RestartIntensity(5, 60 * S, 100 * MS, 100 * MS);
        List<String> found = audit(liveRun(new Random(5), broken, claimed, 2));
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).contains("journaled restart 2 within the period after 100.0 ms, re-derived restart 2"
                + " within the period after 200.0 ms"), found.get(0));
    }

    @Test
    void aRestartThatDoesNotFollowItsExitsDecisionIsFlagged() {
        List<JournalEvent> journal = liveRun(new Random(7), new RestartIntensity(3, 60 * S, 100 * MS, 1 * S), 2);
        assertFlagged(journal, e -> e instanceof ChildRestarted r && r.restartsInPeriod() == 2
                ? new ChildRestarted(r.timeNanos(), r.orchestratorPid(), r.poolId(), 0, r.group(), r.index(), r.oldPid(),
                        r.newPid(), 100 * MS, 2, r.maxRestarts(), r.periodNanos())
                : e, "it says backoff 100.0 ms, restart 2; its exit's decision was restart 2 within the period after 200.0 ms");
    }

    @Test
    void anExitLeftUndecidedWhileThePoolRanIsFlaggedButNotOnceItFailedOrClosed() {
        RestartIntensity live = new RestartIntensity(3, 60 * S, 100 * MS, 1 * S);
        JournalEvent started = new PoolStarted(0, 1, "p", 0, "h", "STICKY", 1, 1);
        ChildExited undecided = live.exitEvent(1 * S, 1, "p", "g", 0, 100, 3, 0, "restart", null);
        assertEquals(1, audit(List.of(started, undecided)).size(), "undecided while running");
        assertEquals(List.of(), audit(List.of(started, new PoolFailed(S / 2, 1, "p", 7, "why"), undecided)));
        assertEquals(List.of(), audit(List.of(started, new CloseStarted(S / 2, 1, "p", 7, 1, 0, 0, 0, "leak", 1),
                undecided)));
    }

    /** The pool's side, as Pool.applyExitPolicy runs it: 1-8 exits of one child, each decided and journaled. */
    private static List<JournalEvent> liveRun(Random random, RestartIntensity live) {
        return liveRun(random, live, 1 + random.nextInt(8));
    }

    private static List<JournalEvent> liveRun(Random random, RestartIntensity live, int exits) {
        return liveRun(random, live, live, exits);
    }

    /** {@code decides} makes the decisions, {@code journals} writes them (with its own settings). */
    private static List<JournalEvent> liveRun(Random random, RestartIntensity decides, RestartIntensity journals,
            int exits) {
        List<JournalEvent> journal = new ArrayList<>();
        journal.add(new PoolStarted(0, 1, "p", 0, "h", "STICKY", 1, 1));
        long now = S;
        int pid = 100;
        for (int i = 0; i < exits; i++) {
            now += random.nextInt(3_000) * MS;
            RestartIntensity.Decision d = decides.onExit(now);
            journal.add(journals.exitEvent(now, 1, "p", "g", 0, pid, 3, 0, "restart", d));
            if (!d.restart()) {
                journal.add(new PoolFailed(now + 1, 1, "p", 9, "restart intensity crossed"));
                journal.add(new CloseStarted(now + 2, 1, "p", 9, 1, 5 * S, 0, 0, "leak", 1));
                journal.add(new CloseCompleted(now + 3, 1, "p", 9, "CLEAN", 1, 0, 3, "{}"));
                break;
            }
            now += d.backoffNanos() + random.nextInt(50) * MS;
            journal.add(new ChildRestarted(now, 1, "p", 0, "g", 0, pid, pid + 1, d.backoffNanos(), d.restartsInPeriod(),
                    0, 0));
            pid++;
        }
        return journal;
    }

    /** The journal with each event passed through {@code tamper}: the audit finds exactly one difference, naming it. */
    private static void assertFlagged(List<JournalEvent> journal, UnaryOperator<JournalEvent> tamper, String expected) {
        assertEquals(List.of(), audit(journal), "untampered");
        List<String> found = audit(journal.stream().map(tamper).toList());
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.get(0).contains(expected), found.get(0));
    }

    private static ChildExited withTime(ChildExited x, long time) {
        return new ChildExited(time, x.orchestratorPid(), x.poolId(), x.closeId(), x.group(), x.index(), x.pid(),
                x.exitCode(), x.signal(), x.policy(), x.maxRestarts(), x.periodNanos(), x.backoffNanos(),
                x.maxBackoffNanos(), x.restartsInPeriod(), x.restartAfterNanos());
    }

    private static List<String> audit(List<JournalEvent> journal) {
        RestartDecisionAudit audit = new RestartDecisionAudit();
        List<String> found = new ArrayList<>();
        for (JournalEvent e : journal) {
            found.addAll(audit.accept(e));
        }
        return found;
    }
}
