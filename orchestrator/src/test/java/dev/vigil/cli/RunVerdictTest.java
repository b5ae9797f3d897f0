package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RunVerdictTest {
    @Test
    void aRunSaysWhyItFailsCountedByReasonInTheOrderMet() {
        RunVerdict v = new RunVerdict();
        assertEquals("result: CLEAN (exit 0)", v.line());
        assertFalse(v.failed());
        v.count("child(ren) exited during the run");
        v.count("close(s) failed");
        v.count("child(ren) exited during the run");
        assertTrue(v.failed());
        assertEquals("result: FAILED (exit 1): 2 child(ren) exited during the run; 1 close(s) failed", v.line());
    }
}
