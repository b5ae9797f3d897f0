package dev.vigil.close.decision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChildWatchTest {
    @Test
    void beatsBeforeAnAckAreNotProgressButTheyResetTheHeartbeatAge() {
        ChildWatch w = new ChildWatch(null, 1_000);
        ChildWatch.Seen s = w.observe(0, 7, 2_000);
        assertTrue(s.beat());
        assertFalse(s.progress());
        assertEquals(500, w.heartbeatAgeNanos(2_500));
    }

    @Test
    void theFirstAckIsProgressOnceAndLaterBeatsAreProgress() {
        ChildWatch w = new ChildWatch(null, 0);
        assertTrue(w.observe(123, 0, 10).firstAck());
        assertTrue(w.observe(123, 0, 10) .equals(w.observe(123, 0, 20)));
        assertFalse(w.observe(123, 0, 30).progress());
        assertTrue(w.observe(123, 1, 40).progress());
        assertEquals(123, w.ackNanos());
    }

    @Test
    void theHeartbeatAgeCountsFromTheBroadcastUntilTheFirstBeat() {
        MailboxWords words = new MailboxWords(0, "IDLE", "CHILD", 1, false, 0, 0, 42);
        ChildWatch w = new ChildWatch(words, 5_000);
        assertFalse(w.observe(words, 9_000).beat());
        assertEquals(4_000, w.heartbeatAgeNanos(9_000));
    }

    @Test
    void escalationIsNothingForLeakAndTermThenKillWithAtLeastOneSecondAfterTheKill() {
        assertTrue(EscalationStep.plan(EscalationPolicy.LEAK, 5).isEmpty());
        var plan = EscalationStep.plan(EscalationPolicy.TERM_THEN_KILL, 200_000_000L);
        assertEquals(new EscalationStep(15, "pgroup", 200_000_000L), plan.get(0));
        assertEquals(new EscalationStep(9, "pidfd+pgroup", 1_000_000_000L), plan.get(1));
        assertTrue(plan.get(1).throughPidfd());
    }

    @Test
    void aChildsOutcomeFollowsReapEscalationAndSignal() {
        assertEquals(CloseReport.ChildOutcome.SURVIVOR, CloseReport.ChildOutcome.of(false, true, 9));
        assertEquals(CloseReport.ChildOutcome.KILLED_BY_ESCALATION, CloseReport.ChildOutcome.of(true, true, 0));
        assertEquals(CloseReport.ChildOutcome.SIGNALED, CloseReport.ChildOutcome.of(true, false, 15));
        assertEquals(CloseReport.ChildOutcome.EXITED, CloseReport.ChildOutcome.of(true, false, 0));
    }
}
