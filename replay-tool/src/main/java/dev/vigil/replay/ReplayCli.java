package dev.vigil.replay;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.vigil.journal.JournalException;
import dev.vigil.journal.JsonEvents;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code vigil-replay}: rebuilds closes from a journal, audits it, measures it and draws it. Each
 * subcommand's work is a method that writes to a {@link PrintStream}; {@link #execute} runs a
 * command line and maps every failure to one {@code ERR:} line on stderr and exit code 2.
 */
public final class ReplayCli implements Runnable {
    /** Exit code for input the tool cannot use. */
    public static final int EXIT_BAD_INPUT = 2;

    PrintStream out = System.out;
    PrintStream err = System.err;

    private CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required");
    }

    public static void main(String[] args) {
        // Chronicle logs INFO at start-up and WARNs about damage it then reports to us as an exception;
        // stderr is kept for progress and the one ERR: line. Its errors (e.g. missing JVM flags) still show.
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "error");
        }
        excludeUnusedConverters();
        // Buffered: a PrintStream hands each print to the stream below at once, so show made ~150 write calls for its
        // ~60 lines, closes one a line, export (Jackson's 8 KB chunks aside) one a piece. Every command flushes at its
        // end (execute) or on failure (failed); tail after each event.
        PrintStream out = new PrintStream(new java.io.BufferedOutputStream(new StdoutStream(), 1 << 16), false,
                StandardCharsets.UTF_8);
        int code = execute(out, System.err, args);
        if (Boolean.getBoolean("vigil.replay.cdsTraining")) {
            useWhatOtherCommandsUse(args);
        }
        System.exit(code);
    }

    /**
     * The converters {@link #excludeUnusedConverters} leaves out: no option of this tool has such a type (CommandsTest
     * checks). picocli asks it of each of its 17 java.time and java.sql types with String.matches, which compiles the
     * expression every time: the plainest one that tells them apart ({@code java\.(time|sql)\..*} took the model of
     * {@code show} 30-86 ms against 22-60 ms, load 13).
     */
    static final String UNUSED_CONVERTER_TYPES = "java\\.[st].*";

    /**
     * picocli registers a converter for each java.time and java.sql type on every command line it builds, loading
     * and initialising those classes by reflection (java.time's formatters, their regular expressions): a tenth of a
     * short command such as {@code show} (bin/vigil-bench replay). Its own switch, {@code picocli.converters.excludes},
     * leaves them out; an option of such a type would then fail to convert.
     */
    static void excludeUnusedConverters() {
        if (System.getProperty("picocli.converters.excludes") == null) {
            System.setProperty("picocli.converters.excludes", UNUSED_CONVERTER_TYPES);
        }
    }

    /**
     * The launcher's class-data archive is dumped by the first command that reads a journal after a
     * build (bin/vigil-replay); this makes it also hold what the other commands load: HdrHistogram
     * (stats), Jackson's record reading and writing (show's live report, JSON output), and what a
     * {@code show} makes as it runs ({@link #rebuildOneClose}).
     */
    private static void useWhatOtherCommandsUse(String[] args) {
        rebuildOneClose(args);
        LatencySummary.of(LatencySummary.newHistogram()).columns();
        CloseOutcome.fromJson(new CloseOutcome("p", 1, CloseOutcome.CLEAN, 0, List.of()).toJson(), 1);
        JsonEvents.mapper().createObjectNode().put("type", "overall").toString();
        for (Class<?> inJar : List.of(ReplayCli.class, JsonEvents.class, dev.vigil.close.decision.SurvivorClass.class)) {
            loadEveryClassOf(inJar);
        }
    }

    /**
     * Runs {@code show} of the first close of the journal the training command read (its first argument that is a
     * directory), output discarded: the lambda classes a run spins are archived only when that run made them, and
     * spinning them took a {@code show} ~15 ms of its ~0.45 s of CPU when a {@code stats} had made the archive
     * (33 classes defined at run time, against 10 with an archive made by a {@code show}).
     */
    private static void rebuildOneClose(String[] args) {
        if (args.length < 2 || args[0].equals("show")) {
            return;
        }
        PrintStream discarded = new PrintStream(java.io.OutputStream.nullOutputStream(), false, StandardCharsets.UTF_8);
        try {
            for (String arg : args) {
                if (!arg.startsWith("-") && java.nio.file.Files.isDirectory(java.nio.file.Path.of(arg))) {
                    dev.vigil.journal.CloseIndex.load(java.nio.file.Path.of(arg)).keySet().stream().findFirst()
                            .ifPresent(close -> execute(discarded, discarded, "show", arg, Long.toString(close)));
                    return;
                }
            }
        } catch (RuntimeException | Error trainingOnly) {
            // the archive is made from what loaded; the command's own answer was given already
        }
    }

    /** Loads (does not initialise) every {@code dev.vigil} class of the jar that holds {@code inJar}. */
    private static void loadEveryClassOf(Class<?> inJar) {
        ClassLoader loader = inJar.getClassLoader();
        try (java.util.jar.JarFile jar = new java.util.jar.JarFile(
                java.nio.file.Path.of(inJar.getProtectionDomain().getCodeSource().getLocation().toURI()).toFile())) {
            for (String name : jar.stream().map(java.util.zip.ZipEntry::getName)
                    .filter(n -> n.startsWith("dev/vigil/") && n.endsWith(".class")).toList()) {
                try {
                    Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false, loader);
                } catch (ClassNotFoundException | LinkageError optional) {
                    // e.g. a class of the Kafka source without the fleet jar: not archived
                }
            }
        } catch (java.io.IOException | java.net.URISyntaxException | RuntimeException notAJar) {
            // run from classes (tests): nothing to archive
        }
    }

    /** The subcommands, in the order the help lists them: name and model. */
    private static final List<Map.Entry<String, Function<ReplayCli, CommandSpec>>> SUBCOMMANDS = List.of(
            Map.entry("closes", ClosesCommand::model), Map.entry("show", ShowCommand::model),
            Map.entry("audit", AuditCommand::model), Map.entry("stats", StatsCommand::model),
            Map.entry("export", ExportCommand::model), Map.entry("timeline", TimelineCommand::model),
            Map.entry("tail", TailCommand::model));

    /**
     * The command line with its subcommands (their models written in code, CommandModel): when the first argument
     * names one, only that one; otherwise (help, a typo, no subcommand) all of them and picocli's {@code help}, whose
     * model picocli reads from its annotations.
     */
    static CommandLine commandLine(ReplayCli cli, String... args) {
        cli.spec = CommandModel.command(cli, "vigil-replay", null,
                "Rebuild, audit, measure and draw the closes recorded in a Vigil journal (no live orchestrator needed).")
                .version("vigil-replay 0.1");
        cli.spec.usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(CommandLine.Model.UsageMessageSpec.keyValuesMap(
                "0:success (audit: no violations)", AuditCommand.EXIT_VIOLATIONS + ":audit found violations",
                EXIT_BAD_INPUT + ":unusable input (missing or damaged journal, unknown close id, bad arguments), or"
                        + " output that could not be written",
                AuditCommand.EXIT_IN_PROGRESS + ":audit: no violation so far, but the orchestrator writing the journal"
                        + " still runs some close",
                StdoutStream.EXIT_READER_GONE + ":the reader of the output went away (| head), as a shell reports SIGPIPE"));
        CommandLine cl = new CommandLine(cli.spec);
        String named = args.length == 0 ? null : args[0];
        boolean known = SUBCOMMANDS.stream().anyMatch(c -> c.getKey().equals(named));
        for (Map.Entry<String, Function<ReplayCli, CommandSpec>> c : SUBCOMMANDS) {
            if (!known || c.getKey().equals(named)) {
                cl.addSubcommand(c.getKey(), c.getValue().apply(cli));
            }
        }
        if (!known) {
            cl.addSubcommand(new CommandLine.HelpCommand());
        }
        return cl;
    }

    /** Runs one command line; never throws, never exits the JVM. Returns the exit code. */
    public static int execute(PrintStream out, PrintStream err, String... args) {
        ReplayCli cli = new ReplayCli();
        cli.out = out;
        cli.err = err;
        CommandLine cl = commandLine(cli, args);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler((ex, a) -> {
            String name = ex.getCommandLine().getCommandSpec().qualifiedName();
            err.println("ERR: " + oneLine(ex.getMessage()) + " (see: " + name + " --help)");
            return EXIT_BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> failed(ex, out, err));
        try {
            int code = cl.execute(args);
            out.flush();
            return code;
        } catch (RuntimeException | Error unexpected) {
            return failed(unexpected, out, err);
        }
    }

    /** Prints the one ERR: line of a failed command (after whatever output it made) and returns its exit code. */
    private static int failed(Throwable t, PrintStream out, PrintStream err) {
        try {
            out.flush();
        } catch (StdoutStream.Failed f) {
            return f.report(err);
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof StdoutStream.Failed f) { // also inside Jackson's wrapping of a failed write
                return f.report(err);
            }
        }
        err.println("ERR: " + describe(t));
        return EXIT_BAD_INPUT;
    }

    /** The one-line reason for a failure: domain messages as they are, anything else with its type. */
    static String describe(Throwable t) {
        if (t instanceof JournalException || t instanceof ReplayInputException) {
            return oneLine(t.getMessage());
        }
        if (t instanceof java.io.UncheckedIOException u) {
            return oneLine(JournalException.plain(u.getCause()));
        }
        if (t instanceof InternalError) {
            return oneLine(JournalException.plain(t)); // a memory fault on a damaged journal file
        }
        return "unexpected " + oneLine(String.valueOf(t)) + (t.getCause() == null ? "" : " caused by " + oneLine(String.valueOf(t.getCause())));
    }

    /** Longest ERR: text; Chronicle puts whole hex dumps into some messages. */
    private static final int MAX_MESSAGE = 400;

    private static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String line = s.replace('\n', ' ').replace('\r', ' ').replaceAll("\\s{2,}", " ").strip();
        return line.length() <= MAX_MESSAGE ? line : line.substring(0, MAX_MESSAGE) + " ...";
    }
}
