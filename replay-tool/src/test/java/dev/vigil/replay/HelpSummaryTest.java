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

    /**
     * Each subcommand's description is one paragraph wrapped at the help width. It was given as lines of ~95 characters,
     * each of which picocli wrapped at 80 on its own, so every second line was a stub ("from, to,", "start. The rebuilt").
     */
    @Test
    void everySubcommandDescriptionIsWrappedAsOneParagraph() {
        for (String sub : List.of("closes", "show", "audit", "stats", "export", "timeline", "tail")) {
            CliRun help = CliRun.of(sub, "--help");
            assertEquals(0, help.exit(), help::toString);
            assertEquals(List.of(), HelpSummaries.descriptionStubs(help.out()), () -> sub + " --help:\n" + help.out());
        }
    }

    /** Every exit code a command can end with is listed (3 of a live audit and 141 of a closed pipe were not). */
    @Test
    void theHelpListsEveryExitCode() {
        CliRun help = CliRun.of("--help");
        for (int code : new int[] {0, AuditCommand.EXIT_VIOLATIONS, ReplayCli.EXIT_BAD_INPUT, AuditCommand.EXIT_IN_PROGRESS,
                StdoutStream.EXIT_READER_GONE}) {
            assertTrue(help.out().matches("(?s).*\\n +" + code + " +\\S.*"), () -> "exit code " + code + " not listed:\n" + help.out());
        }
    }
}
