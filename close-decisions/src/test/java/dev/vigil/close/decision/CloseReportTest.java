package dev.vigil.close.decision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class CloseReportTest {
    private static CloseReport.Child child(String group, int index, CloseReport.ChildOutcome outcome) {
        boolean reaped = outcome != CloseReport.ChildOutcome.SURVIVOR;
        return new CloseReport.Child(group, index, 100 + index, "C", outcome, reaped ? 0 : -1, 0,
                reaped ? 5_000 : -1, reaped ? null : "NOT_OBSERVED", reaped ? null : "pid=101 class=NOT_OBSERVED");
    }

    @Test
    void jsonKeepsTheContractNamesInOrderAndRoundTrips() {
        CloseReport r = new CloseReport("p1", 42, CloseReport.Outcome.CLEAN, 1234,
                List.of(child("g", 0, CloseReport.ChildOutcome.EXITED)));
        String json = r.toJson();
        assertEquals("{\"poolId\":\"p1\",\"closeId\":42,\"outcome\":\"CLEAN\",\"durationNanos\":1234,\"children\":[{"
                + "\"group\":\"g\",\"index\":0,\"pid\":100,\"kind\":\"C\",\"outcome\":\"EXITED\",\"exitCode\":0,"
                + "\"signal\":0,\"sinceBroadcastNanos\":5000,\"diagnosis\":null,\"evidence\":null}]}", json);
        assertEquals(r, CloseReport.fromJson(json));
    }

    /**
     * Every field, each left-out rule (stacks, stderrTail and journalGap when null, strays and kills when empty) and
     * escaping: the form the mapper's bean serializer wrote from the record's annotations, before toJson wrote it
     * field by field.
     */
    @Test
    void jsonOfEveryFieldIsTheContractFormAndRoundTrips() {
        CloseReport full = new CloseReport("p\"x", 12, CloseReport.Outcome.FAILED, 33, List.of(
                new CloseReport.Child("g", 0, 5, "C", CloseReport.ChildOutcome.EXITED, 0, 0, 44, null, null),
                new CloseReport.Child("g\u00e9", 1, 6, "JAVA", CloseReport.ChildOutcome.SURVIVOR, -1, 0, -1, "BUSY",
                        "ev \n line", "stk", "tail\tx")),
                List.of(new CloseReport.Stray(7, 1, null, true), new CloseReport.Stray(8, 2, "sleep 5", false)),
                List.of(new CloseReport.Kill("cgroup.kill", "/sys/fs/x", 1, 2, true))).withJournalGap("gap 1");
        String json = full.toJson();
        assertEquals("{\"poolId\":\"p\\\"x\",\"closeId\":12,\"outcome\":\"FAILED\",\"durationNanos\":33,\"children\":["
                + "{\"group\":\"g\",\"index\":0,\"pid\":5,\"kind\":\"C\",\"outcome\":\"EXITED\",\"exitCode\":0,\"signal\":0,"
                + "\"sinceBroadcastNanos\":44,\"diagnosis\":null,\"evidence\":null},"
                + "{\"group\":\"g\u00e9\",\"index\":1,\"pid\":6,\"kind\":\"JAVA\",\"outcome\":\"SURVIVOR\",\"exitCode\":-1,"
                + "\"signal\":0,\"sinceBroadcastNanos\":-1,\"diagnosis\":\"BUSY\",\"evidence\":\"ev \\n line\","
                + "\"stacks\":\"stk\",\"stderrTail\":\"tail\\tx\"}],"
                + "\"strays\":[{\"pid\":7,\"parentPid\":1,\"command\":null,\"killed\":true},"
                + "{\"pid\":8,\"parentPid\":2,\"command\":\"sleep 5\",\"killed\":false}],"
                + "\"kills\":[{\"how\":\"cgroup.kill\",\"container\":\"/sys/fs/x\",\"directChildren\":1,\"descendants\":2,"
                + "\"empty\":true}],\"journalGap\":\"gap 1\"}", json);
        assertEquals(full, CloseReport.fromJson(json));
        CloseReport empty = new CloseReport("p", 1, CloseReport.Outcome.CLEAN, 0, List.of());
        assertEquals("{\"poolId\":\"p\",\"closeId\":1,\"outcome\":\"CLEAN\",\"durationNanos\":0,\"children\":[]}",
                empty.toJson());
        assertEquals(empty, CloseReport.fromJson(empty.toJson()));
    }

    /**
     * The report's cause line is made exact from the evidence: a plain executable that outlived its stop signal was
     * said to be "idle in its loop (not in a handler)", as a mailbox child ignoring shutdown is.
     */
    @Test
    void aPlainExecutablesSurvivalIsNotCalledIdleInItsLoop() {
        String evidence = "pid=7 group=web child=0 class=NOT_OBSERVED kind=EXEC state=SIGNALED_ONLY proc=S wchan=do_wait";
        CloseReport r = new CloseReport("p", 3, CloseReport.Outcome.FAILED, 1, List.of(new CloseReport.Child("web", 0, 7,
                "EXEC", CloseReport.ChildOutcome.SURVIVOR, -1, 0, -1, "NOT_OBSERVED", evidence)));
        String failures = r.describeFailures();
        assertTrue(failures.contains("cause: stop signal delivered but it did not exit: a plain executable")
                && !failures.contains("idle in its loop"), failures);
    }

    @Test
    void anySurvivorOrEscalationFailsTheClose() {
        assertEquals(CloseReport.Outcome.CLEAN, CloseReport.outcomeOf(List.of(child("g", 0,
                CloseReport.ChildOutcome.EXITED), child("g", 1, CloseReport.ChildOutcome.SIGNALED))));
        assertEquals(CloseReport.Outcome.FAILED, CloseReport.outcomeOf(List.of(child("g", 0,
                CloseReport.ChildOutcome.KILLED_BY_ESCALATION))));
        assertEquals(CloseReport.Outcome.FAILED, CloseReport.outcomeOf(List.of(child("g", 0,
                CloseReport.ChildOutcome.SURVIVOR))));
    }
}
