package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The demo's first line names the command that repeats its draws: {@code bin/vigil demo --protocol legacy --seed 1}
 * printed {@code bin/vigil demo --seed 1 repeats these draws}, which starts a sticky demo that loses no shutdown.
 */
class DemoRepeatCommandTest {
    @Test
    void theRepeatCommandCarriesEveryOptionTheDrawsDependOn() {
        assertEquals("bin/vigil demo --seed 7", VigilCli.Demo.repeatCommand("sticky", 3, 0.1, 7));
        assertEquals("bin/vigil demo --protocol legacy --seed 1", VigilCli.Demo.repeatCommand("legacy", 3, 0.1, 1));
        assertEquals("bin/vigil demo --protocol legacy --cycles 1 --time-scale 1.0 --seed 2",
                VigilCli.Demo.repeatCommand("legacy", 1, 1.0, 2));
    }
}
