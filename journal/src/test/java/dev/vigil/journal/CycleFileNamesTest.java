package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

import org.junit.jupiter.api.Test;

/** {@link CycleFiles#fileName} and {@link CycleFiles#cycleOf}: the names Chronicle gives the journal's cycle files. */
class CycleFileNamesTest {
    /** The last day checked: 2199-12-31, with 2000 (a leap year of 400) and 2100 (no leap year of 100) on the way. */
    private static final int LAST_CYCLE = (int) java.time.LocalDate.of(2199, 12, 31).toEpochDay();

    @Test
    void everyDayIsNamedAsChronicleNamesItAndReadBack() {
        assertEquals("yyyyMMdd'F'", JournalDirectory.ROLL_CYCLE.format(), "the names below are those of this roll cycle");
        assertEquals(86_400_000, JournalDirectory.ROLL_CYCLE.lengthInMillis());
        DateTimeFormatter chronicles = DateTimeFormatter.ofPattern(JournalDirectory.ROLL_CYCLE.format()).withZone(ZoneOffset.UTC);
        for (int cycle = 0; cycle <= LAST_CYCLE; cycle++) {
            String name = chronicles.format(Instant.ofEpochMilli((long) cycle * JournalDirectory.ROLL_CYCLE.lengthInMillis())) + ".cq4";
            assertEquals(name, CycleFiles.fileName(cycle), "cycle " + cycle);
            assertEquals(cycle, CycleFiles.cycleOf(name), name);
        }
    }

    @Test
    void aNameOfNoDayIsNoCycle() {
        for (String name : List.of("20260230F.cq4", "20230229F.cq4", "21000229F.cq4", "20261301F.cq4", "20261200F.cq4",
                "20260001F.cq4", "2026120F.cq4", "202612040F.cq4", "20261204.cq4", "2026120xF.cq4", "20261204G.cq4",
                "-2026120F.cq4", "metadata.cq4")) {
            assertNull(CycleFiles.cycleOf(name), name);
        }
        assertEquals(19_782, CycleFiles.cycleOf("20240229F.cq4"), "a leap day");
        assertEquals(11_016, CycleFiles.cycleOf("20000229F.cq4"), "the leap day of a year of 400");
    }
}
