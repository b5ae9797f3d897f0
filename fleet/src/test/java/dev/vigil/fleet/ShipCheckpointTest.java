package dev.vigil.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The checkpoint file says its index in hex, as every message of vigil ship does, and still reads a decimal one. */
class ShipCheckpointTest {
    @TempDir
    Path dir;

    @Test
    void theIndexIsWrittenInHexAndReadBack() throws Exception {
        ShipCheckpoint cp = new ShipCheckpoint(dir, "h1", "t");
        cp.store(0x513700000006L);
        assertTrue(Files.readString(cp.file()).contains("\nindex=0x513700000006\n"), Files.readString(cp.file()));
        assertEquals(0x513700000006L, cp.load());
        cp.store(-1);
        assertEquals(-1, cp.load());
    }

    @Test
    void aDecimalIndexOfAnOlderShipperIsStillReadAndAMalformedOneRefused() throws Exception {
        ShipCheckpoint cp = new ShipCheckpoint(dir, "h1", "t");
        Files.writeString(cp.file(), "host=h1\ntopic=t\nindex=" + 0x513700000006L + "\n");
        assertEquals(0x513700000006L, cp.load());
        Files.writeString(cp.file(), "host=h1\ntopic=t\nindex=0xZZ\n");
        FleetInputException e = assertThrows(FleetInputException.class, cp::load);
        assertTrue(e.getMessage().contains("malformed index=0xZZ"), e.getMessage());
    }
}
