package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * bin/vigil --help lists each subcommand with one complete short sentence: picocli shows a command's header, else the
 * first line of its description, and the descriptions of demo, session and reap ran over three or four lines.
 */
class HelpSummaryTest {
    @Test
    void everySubcommandSummaryIsOneSentenceOnOneLine() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = new VigilCli(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute("--help");
        String help = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, help + err);
        assertTrue(help.contains("  reap "), help);
        assertEquals(List.of(), HelpSummaries.problems(help), help);
    }

    /** Each subcommand's description is wrapped as one paragraph, with no stub line (vigil-replay's were not). */
    @Test
    void everySubcommandDescriptionIsWrappedAsOneParagraph() {
        for (String sub : List.of("run", "demo", "session", "reap")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int exit = new VigilCli(new PrintStream(out, true, StandardCharsets.UTF_8), System.err).execute(sub, "--help");
            String help = out.toString(StandardCharsets.UTF_8);
            assertEquals(0, exit, help);
            assertEquals(List.of(), HelpSummaries.descriptionStubs(help), sub + " --help:\n" + help);
        }
    }

    /** run --help lists every exit code a run ends with (before, only README did). */
    @Test
    void runsHelpListsEveryExitCode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = new VigilCli(new PrintStream(out, true, StandardCharsets.UTF_8), System.err).execute("run", "--help");
        String help = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, help);
        for (int code : new int[] {PoolRunner.CLEAN, PoolRunner.CLOSE_FAILED, VigilCli.BAD_USAGE, PoolRunner.INTERRUPTED,
                NotedStdout.EXIT_READER_GONE}) {
            assertTrue(help.matches("(?s).*\\n +" + code + " +\\S.*"), () -> "exit code " + code + " not listed:\n" + help);
        }
    }
}
