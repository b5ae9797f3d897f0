package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.vigil.cli.HelpSummaries;

/**
 * vigil-replay --help lists each subcommand with one complete short sentence (its header): the first line of each
 * description was shown, cut mid-sentence ("List every close in the journal: pool, start (relative to the journal's
 * first event),").
 */
class HelpSummaryTest {
    @Test
    void everySubcommandSummaryIsOneSentenceOnOneLine() {
        CliRun help = CliRun.of("--help");
        assertEquals(0, help.exit(), help::toString);
        assertTrue(help.out().contains("  timeline "), help::toString);
        assertEquals(List.of(), HelpSummaries.problems(help.out()), help::toString);
    }
}
