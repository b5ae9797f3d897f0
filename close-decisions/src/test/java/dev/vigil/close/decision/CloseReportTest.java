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
