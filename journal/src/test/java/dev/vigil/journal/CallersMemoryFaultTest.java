package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A memory fault of a mapped file of the caller's (a mailbox map cut short while mapped), raised by the JVM inside
 * {@link JournalWriter#append} at a later instruction than the caller's read, is the caller's: the event is written,
 * the fault goes on to the caller, and the journal does not name itself incomplete. Real files, a real cut, a real
 * SIGBUS, in a JVM of its own ({@link CallersFaultProcess}).
 */
class CallersMemoryFaultTest {
    @Test
    void aFaultOfTheCallersCutMapRaisedInsideAppendGoesToTheCallerAndLeavesNoJournalGap(@TempDir Path work)
            throws Exception {
        try (ForkedJvm p = ForkedJvm.start(work, CallersFaultProcess.class, work.toString())) {
            String cut = p.awaitLine(l -> l.startsWith("CUT "), 60_000);
            String gap = p.awaitLine(l -> l.startsWith("GAP "), 60_000);
            String appended = p.awaitLine(l -> l.startsWith("APPENDED "), 60_000);
            String events = p.awaitLine(l -> l.startsWith("EVENTS "), 60_000);
            assertEquals(0, p.awaitExit(30_000));
            assertEquals("GAP none", gap, "the caller's map was cut, not the journal");
            assertTrue(cut.startsWith("CUT in append: ") && cut.contains("unsafe memory access"),
                    "the fault goes on to the caller: " + cut);
            assertEquals(appended.substring("APPENDED ".length()), events.substring("EVENTS ".length()),
                    "every event appended is in the journal");
        }
    }
}
