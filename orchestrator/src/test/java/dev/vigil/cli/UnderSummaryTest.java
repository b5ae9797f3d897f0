package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Every child's entry of a failed close prints at the same indent under the close's summary line. */
class UnderSummaryTest {
    @Test
    void everyEntryOfAReportBlockGetsTheSameIndent() {
        String block = "\n  outcome=KILLED_BY_ESCALATION pid=1\n    cause: a\n  outcome=KILLED_BY_ESCALATION pid=2\n    cause: b\n";
        assertEquals("    outcome=KILLED_BY_ESCALATION pid=1\n      cause: a\n    outcome=KILLED_BY_ESCALATION pid=2\n      cause: b",
                PoolRunner.underSummary(block));
    }
}
