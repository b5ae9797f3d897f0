package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;

import dev.vigil.close.decision.CloseReport;

/**
 * {@link CloseOutcome#fromJson} reads the live report with Jackson's streaming parser; it must read what Jackson's
 * data binding of the same record reads (the way it was read before), fields it does not know skipped.
 */
class CloseOutcomeJsonTest {
    private static final ObjectMapper BINDING = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    @Test
    void readsWhatDataBindingReads() throws Exception {
        CloseReport report = new CloseReport("pool-a", 42, CloseReport.Outcome.FAILED, 1_234_567_890L, List.of(
                new CloseReport.Child("chips", 0, 101, "JAVA", CloseReport.ChildOutcome.EXITED, 0, 0, 150_000_000L,
                        null, null),
                new CloseReport.Child("chips", 1, 102, "NATIVE", CloseReport.ChildOutcome.SURVIVOR, -1, 0, -1,
                        "WEDGED", "no ack in 2 s, \"quoted\" \u00e9", "main: futex_wait", "last line\nof stderr"),
                new CloseReport.Child("hosts", 7, 103, "PLAIN", CloseReport.ChildOutcome.KILLED_BY_ESCALATION, -1, 9,
                        2_000_000_000L, "IGNORES_SHUTDOWN", "acked, never exited")),
                List.of(new CloseReport.Stray(201, 102, "sleep 100", true)),
                List.of(new CloseReport.Kill("cgroup.kill", "/sys/fs/cgroup/x", 1, 1, true)))
                .withJournalGap("from index 7, 3 events, disk full");
        String json = report.toJson();
        CloseOutcome streamed = CloseOutcome.fromJson(json, 42);
        assertEquals(BINDING.readValue(json, CloseOutcome.class), streamed);
        assertEquals(3, streamed.children().size());
        assertEquals("no ack in 2 s, \"quoted\" \u00e9", streamed.children().get(1).evidence());
        assertEquals(streamed, CloseOutcome.fromJson(streamed.toJson(), 42), "its own JSON reads back the same");
    }

    @Test
    void missingFieldsAreNullOrZeroAsWithDataBinding() throws Exception {
        String json = "{\"children\":[{\"group\":\"g\",\"future\":{\"a\":[1,2]}}],\"newer\":[{}]}";
        assertEquals(BINDING.readValue(json, CloseOutcome.class), CloseOutcome.fromJson(json, 1));
    }

    @Test
    void aReportThatIsNotOneIsNamedByItsClose() {
        for (String bad : new String[] {"{\"children\":[", "[1]", "{\"children\":{}}", "{\"children\":[3]}", "nul"}) {
            ReplayInputException e = assertThrows(ReplayInputException.class, () -> CloseOutcome.fromJson(bad, 9), bad);
            assertTrue(e.getMessage().startsWith("closeId=9 report JSON is unreadable: "), e.getMessage());
        }
        for (String none : new String[] {"null", "{\"poolId\":\"p\"}", "{\"children\":null}"}) {
            ReplayInputException e = assertThrows(ReplayInputException.class, () -> CloseOutcome.fromJson(none, 9), none);
            assertEquals("closeId=9 report JSON has no children: " + none, e.getMessage());
        }
    }
}
