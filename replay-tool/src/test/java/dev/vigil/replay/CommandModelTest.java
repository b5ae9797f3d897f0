package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.ParseResult;

/**
 * The command line model (written in code, {@link CommandModel}: picocli's reading of annotations was a fifth of a
 * {@code show}) gives what the annotated model gave: every usage help, version and parse error text, and for each
 * command line the values every option and parameter parses to. The expected text, command-model.txt beside the
 * fixtures, was printed by the annotated model. To regenerate it after an intended change: {@code mvn -pl replay-tool
 * -am test -Dtest=CommandModelTest -Dvigil.replay.regenerateModel=true -Dsurefire.failIfNoSpecifiedTests=false}, then
 * review the diff.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CommandModelTest {
    private static final Path EXPECTED = GoldenFixtureTest.FIXTURES.resolve("command-model.txt");

    /** Command lines run whole (help, version, parse errors): exit code, stdout and stderr. */
    private static final List<List<String>> RUN = List.of(List.of("--help"), List.of("-h"), List.of("--version"),
            List.of("-V"), List.of(), List.of("help"), List.of("help", "show"), List.of("bogus"), List.of("--bogus"),
            List.of("closes", "--help"), List.of("show", "--help"), List.of("audit", "--help"), List.of("stats", "--help"),
            List.of("export", "--help"), List.of("timeline", "--help"), List.of("tail", "--help"),
            List.of("show", "-h"), List.of("show", "--version"), List.of("stats", "-V"), List.of("show"),
            List.of("show", "a", "b", "c"), List.of("show", "--bogus", "d", "1"), List.of("show", "--map"),
            List.of("closes", "a", "b"), List.of("closes", "--kafka"), List.of("stats", "--summary=maybe", "d"),
            List.of("timeline", "d", "1"), List.of("timeline", "-o"), List.of("tail"), List.of("tail", "d", "--limit", "x"),
            List.of("tail", "d", "--idle-exit", "soon"), List.of("export", "d", "e"), List.of("audit", "--map"));

    /** Command lines parsed only: each subcommand's matched values. */
    private static final List<List<String>> PARSE = List.of(List.of("closes", "d"), List.of("closes", "--json", "d"),
            List.of("closes", "--kafka", "h:1", "--topic", "t", "--host", "x"), List.of("closes", "--kafka=h:1", "--topic=t"),
            List.of("show", "d", "7"), List.of("show", "--json", "--map", "m.map", "d", "7"), List.of("show", "7", "--kafka",
                    "h:1", "--topic", "t"), List.of("audit", "d"), List.of("audit", "--json", "--map", "f", "d"),
            List.of("stats", "d"), List.of("stats", "--summary", "--json", "d"), List.of("stats", "--kafka", "k:9", "--topic",
                    "t", "--host", "h"), List.of("export", "d"), List.of("export", "--kafka", "k:9", "--topic", "t"),
            List.of("timeline", "d", "3", "-o", "x.svg"), List.of("timeline", "--output", "x.html", "--kafka", "k", "--topic",
                    "t", "3"), List.of("tail", "d"), List.of("tail", "d", "--from-start", "--idle-exit", "0.5", "--limit", "9",
                    "--json"), List.of("tail", "--limit=3", "d"));

    @Test
    void usageHelpErrorsAndParsedValuesAreTheAnnotatedModels() throws IOException {
        String actual = describe();
        if (Boolean.getBoolean("vigil.replay.regenerateModel")) {
            Files.writeString(EXPECTED, actual, StandardCharsets.UTF_8);
        }
        assertEquals(Files.readString(EXPECTED, StandardCharsets.UTF_8), actual);
    }

    private static String describe() {
        StringBuilder s = new StringBuilder();
        for (List<String> args : RUN) {
            CliRun run = CliRun.of(args.toArray(String[]::new));
            s.append("$ ").append(String.join(" ", args)).append("\nexit ").append(run.exit()).append("\n--- out\n")
                    .append(run.out()).append("--- err\n").append(run.err()).append("\n");
        }
        for (List<String> args : PARSE) {
            String[] a = args.toArray(String[]::new);
            ReplayCli cli = new ReplayCli();
            cli.out = new PrintStream(java.io.OutputStream.nullOutputStream());
            cli.err = cli.out;
            ParseResult parsed = ReplayCli.commandLine(cli, a).parseArgs(a).subcommand();
            s.append("$ ").append(String.join(" ", args)).append("\n");
            List<String> values = new java.util.ArrayList<>();
            for (ArgSpec arg : parsed.commandSpec().args()) {
                String name = arg.isOption() ? ((CommandLine.Model.OptionSpec) arg).longestName()
                        : "param " + ((CommandLine.Model.PositionalParamSpec) arg).index();
                values.add("  " + name + " = " + arg.getValue()
                        + (arg.isOption() && parsed.hasMatchedOption(name) ? " (given)" : "") + "\n");
            }
            values.stream().sorted().forEach(s::append);
            s.append("\n");
        }
        return s.toString();
    }
}
