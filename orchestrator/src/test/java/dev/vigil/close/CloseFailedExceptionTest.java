package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import dev.vigil.close.decision.CloseReport;

import org.junit.jupiter.api.Test;

class CloseFailedExceptionTest {
    private static CloseReport.Child child(String group, int index, CloseReport.ChildOutcome outcome) {
        boolean reaped = outcome != CloseReport.ChildOutcome.SURVIVOR;
        return new CloseReport.Child(group, index, 100 + index, "C", outcome, reaped ? 0 : -1, 0,
                reaped ? 5_000 : -1, reaped ? null : "NOT_OBSERVED", reaped ? null : "pid=101 class=NOT_OBSERVED");
    }

    @Test
    void theExceptionMessageCarriesEveryDiagnosis() {
        CloseReport r = new CloseReport("p1", 7, CloseReport.Outcome.FAILED, 1,
                List.of(child("g", 0, CloseReport.ChildOutcome.EXITED), child("g", 1, CloseReport.ChildOutcome.SURVIVOR)));
        CloseFailedException e = new CloseFailedException(r);
        assertTrue(e.getMessage().startsWith("close failed pool=p1 closeId=7 children=2 survivors=1"), e.getMessage());
        assertTrue(e.getMessage().contains("outcome=SURVIVOR pid=101 class=NOT_OBSERVED"), e.getMessage());
        assertEquals(r, e.report());
    }
}
