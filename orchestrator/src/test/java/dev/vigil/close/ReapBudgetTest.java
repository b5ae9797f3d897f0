package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;

import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.FixedBudget;
import dev.vigil.close.decision.NoProgressBudget;

import org.junit.jupiter.api.Test;

class ReapBudgetTest {
    private static final long S = 1_000_000_000L;

    @Test
    void noProgressBudgetExpiresOnlyAfterAWholeQuietWindow() {
        NoProgressBudget b = new NoProgressBudget(1 * S, 0, 100 * S);
        assertFalse(b.expired(100 * S + S / 2));
        b.progress(100 * S + S / 2);
        assertFalse(b.expired(101 * S + S / 4), "progress at 0.5 s pushes the end to 1.5 s");
        assertEquals(S / 4, b.remainingNanos(101 * S + S / 4));
        assertTrue(b.expired(101 * S + S / 2));
    }

    @Test
    void slowButSteadyProgressOutlastsManyWindows() {
        NoProgressBudget b = new NoProgressBudget(1 * S, 0, 0);
        for (long t = 0; t < 30 * S; t += S / 2) {
            assertFalse(b.expired(t));
            b.progress(t);
        }
    }

    @Test
    void hardCapEndsEvenASteadilyProgressingReap() {
        NoProgressBudget b = new NoProgressBudget(1 * S, 3 * S, 0);
        for (long t = 0; t < 3 * S; t += S / 4) {
            b.progress(t);
        }
        assertEquals(S / 4, b.remainingNanos(3 * S - S / 4));
        assertTrue(b.expired(3 * S));
    }

    @Test
    void progressFromThePastDoesNotMoveTheWindowBack() {
        NoProgressBudget b = new NoProgressBudget(1 * S, 0, 10 * S);
        b.progress(5 * S);
        assertEquals(S, b.remainingNanos(10 * S));
    }

    @Test
    void fixedBudgetIgnoresProgress() {
        FixedBudget b = new FixedBudget(1 * S, 0);
        b.progress(S / 2);
        b.progress(S - 1);
        assertFalse(b.expired(S - 1));
        assertTrue(b.expired(S));
        assertEquals(0, b.remainingNanos(2 * S));
    }

    @Test
    void settingsPickTheFixedBudgetOnlyWhenOneIsSet() {
        assertInstanceOf(NoProgressBudget.class, CloseSettings.defaults().newBudget(0));
        assertInstanceOf(FixedBudget.class,
                CloseSettings.builder().fixedBudget(Duration.ofSeconds(1)).build().newBudget(0));
    }

    @Test
    void settingsReadTheirNamesWithUnitsAndKeepDefaultsForTheRest() {
        Map<String, String> props = Map.of(CloseSettings.WINDOW, "1500ms", CloseSettings.ESCALATION, "term-then-kill",
                CloseSettings.HARD_CAP, "1m", CloseSettings.MAX_PARALLEL, "8");
        CloseSettings s = CloseSettings.from(props::get);
        assertEquals(Duration.ofMillis(1500), s.window());
        assertEquals(Duration.ofMinutes(1), s.hardCap());
        assertEquals(EscalationPolicy.TERM_THEN_KILL, s.escalation());
        assertEquals(8, s.maxParallelCloses());
        assertEquals(Duration.ofSeconds(2), s.grace());
        assertEquals(Duration.ZERO, s.fixedBudget());
        assertEquals(6, CloseSettings.DOCS.size());
    }

    @Test
    void badSettingsFailWithTheirName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CloseSettings.from(Map.of(CloseSettings.WINDOW, "soon")::get));
        assertTrue(e.getMessage().startsWith("vigil.close.window=soon"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> EscalationPolicy.parse("shoot"));
        assertThrows(IllegalArgumentException.class, () -> CloseSettings.builder().window(Duration.ZERO));
    }
}
