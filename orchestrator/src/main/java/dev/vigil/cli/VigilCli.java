package dev.vigil.cli;

import dev.vigil.journal.JournalException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The pool runner from a terminal: {@code vigil run SPEC} and {@code vigil demo}. Exit codes: 0 every
 * close clean, 1 some close failed (its report is printed), 2 bad usage or spec, 130 stopped by Ctrl-C
 * (143 by SIGTERM, 129 by SIGHUP), after closing every open pool, journaled.
 */
@Command(name = "vigil", mixinStandardHelpOptions = true, version = "vigil 0.1.0",
        description = "Start, drive and close pools of worker processes; every close journaled.",
        footer = {"", "bin/vigil ship JOURNAL_DIR --bootstrap HOST:PORT --topic T: ship a journal to Kafka"
                + " (the fleet module; bin/vigil ship --help, docs/FLEET.md)."})
public final class VigilCli implements Callable<Integer> {
    public static final int BAD_USAGE = 2;

    /** The subcommands, in the order the help lists them. */
    private static final List<Class<?>> SUBCOMMANDS = List.of(Run.class, Demo.class, Session.class, Reap.class);

    private final PrintStream out;
    private final PrintStream err;
    /** Set while a run is going on, so that Ctrl-C can ask it to close what is open. */
    private volatile Stoppable active;

    VigilCli(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static void main(String[] args) {
        if (args.length > 0 && java.util.Set.of("run", "demo", "session", "reap").contains(args[0])) {
            dev.vigil.pool.StartUpPreload.start();
        }
        NotedStdout stdout = new NotedStdout();
        String encoding = System.getProperty("sun.stdout.encoding"); // what System.out writes in
        PrintStream out = new PrintStream(stdout, true,
                encoding != null ? java.nio.charset.Charset.forName(encoding) : java.nio.charset.Charset.defaultCharset());
        VigilCli cli = new VigilCli(out, System.err);
        cli.stopOnSignals();
        int code = cli.execute(args);
        out.flush();
        System.exit(stdout.exitCode(code, System.err));
    }

    /**
     * The first Ctrl-C (SIGINT), SIGTERM or SIGHUP (the terminal or ssh session went away) asks the active run to
     * stop spawning, close every open pool (and what a start in progress spawned), journaled, and return 128 + the
     * signal ({@link PoolRunner#INTERRUPTED} for Ctrl-C). A second one escalates every close at once (SIGKILL to the
     * survivors, journaled). Before, SIGHUP took the JVM's default: exit 129 at once, no close journaled,
     * the guardian's kill, and an audit violation per open close. A signal ignored when the JVM started (SIGHUP
     * under {@code nohup}) stays ignored: HotSpot installs no handler for it. SIGUSR1, SIGUSR2 and SIGALRM, whose
     * default also ends a process, do the same: before, SIGUSR1 and SIGALRM ended the JVM at once (exit 138, 142: no
     * close journaled, the guardian's kill), and SIGUSR2 crashed it (hs_err file, exit 134).
     */
    /** The signals that stop a run (closing every pool, journaled) instead of ending the JVM at once. */
    static final String[] STOP_SIGNALS = {"INT", "TERM", "HUP", "USR1", "USR2", "ALRM"};

    void stopOnSignals() {
        for (String name : STOP_SIGNALS) {
            if (name.equals("USR2") && System.getenv(dev.vigil.pool.ChildRuntimes.HOTSPOT_SUSPEND_SIGNAL_ENV) == null) {
                continue; // HotSpot's own (thread suspension) unless bin/vigil moved it: sun.misc.Signal refuses it
            }
            SignalTrap.install(name, number -> {
                Stoppable r = active;
                if (r == null) {
                    Runtime.getRuntime().halt(128 + number);
                }
                if (r.requestStop(number, "SIG" + name) == 1) {
                    err.println("vigil: SIG" + name + " received, closing open pools (again to kill them now) ...");
                } else {
                    err.println("vigil: SIG" + name + " again, escalating every close now (SIGKILL) ...");
                }
            });
        }
    }

    /**
     * The command line with its subcommands: when the first argument names one, only that one (picocli builds each
     * subcommand's model by reflection over its annotations, on the way to a run's first child); otherwise (help, a
     * typo, no subcommand) all of them, so that the help and the suggestions are those of the whole tool.
     */
    private CommandLine commandLine(String... args) {
        CommandLine cl = new CommandLine(this);
        Class<?> only = null;
        for (Class<?> c : SUBCOMMANDS) {
            if (args.length > 0 && c.getAnnotation(Command.class).name().equals(args[0])) {
                only = c;
            }
        }
        for (Class<?> c : SUBCOMMANDS) {
            if (only == null || c == only) {
                try {
                    cl.addSubcommand(c.getAnnotation(Command.class).name(), c.getDeclaredConstructor().newInstance());
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException("cannot make subcommand " + c.getName(), e);
                }
            }
        }
        return cl;
    }

    /** Runs one command line; returns its exit code. Never throws to the caller. */
    public int execute(String... args) {
        CommandLine cl = commandLine(args);
        cl.setOut(new java.io.PrintWriter(out, true));
        cl.setErr(new java.io.PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            err.println("ERR: " + oneLine(e));
            return e instanceof SpecInvalidException || e instanceof IllegalArgumentException
                    || e instanceof dev.vigil.recovery.JournalDirInUseException
                    || e instanceof dev.vigil.contain.ContainmentException ? BAD_USAGE : 1;
        });
        cl.setParameterExceptionHandler((e, a) -> {
            // One line, as vigil-replay says it: the usage is one --help away, not forty lines that bury the error.
            err.println("ERR: " + oneLine(e) + " (see: " + e.getCommandLine().getCommandSpec().qualifiedName() + " --help)");
            return BAD_USAGE;
        });
        try {
            return cl.execute(args);
        } catch (RuntimeException | Error unexpected) {
            // picocli hands only Exceptions to the handler above: an Error (a memory fault on a mapped file is an
            // InternalError) printed its stack trace and exited 1.
            err.println("ERR: " + oneLine(unexpected));
            return 1;
        }
    }

    /** {@code SPEC [--journal DIR]} of run and session. */
    static final class SpecArguments {
        @Parameters(paramLabel = "SPEC", description = "pool spec (.json, .yaml, .yml)")
        Path specFile;

        @Option(names = "--journal", paramLabel = "DIR", description = "journal directory (overrides the spec's journalDir)")
        Path journal;

        /** The spec with --journal applied, or null once its mistakes are printed to {@code err}. */
        RunSpec read(PrintStream err) {
            RunSpec spec;
            try {
                spec = SpecReader.read(specFile);
            } catch (SpecInvalidException e) {
                err.println("ERR: " + e.getMessage());
                return null;
            }
            return journal == null ? spec : spec.withJournalDir(journal.toString());
        }
    }

    /** {@code --ship HOST:PORT [--ship-topic T] [--host-id H]} of run and demo (docs/FLEET.md). */
    static final class ShipOptions {
        @Option(names = "--ship", paramLabel = "HOST:PORT", description = "ship the journal to this Kafka cluster while the run runs (bin/vigil ship in a process of its own)")
        String bootstrap;

        @Option(names = "--ship-topic", paramLabel = "T", defaultValue = "vigil-journal", description = "with --ship: the topic (default ${DEFAULT-VALUE}); it must exist")
        String topic;

        @Option(names = "--host-id", paramLabel = "H", description = "with --ship: the host id (default: $VIGIL_HOST_ID, else the hostname)")
        String hostId;

        JournalShipping.Target target() {
            return bootstrap == null ? null : new JournalShipping.Target(bootstrap, topic, hostId);
        }
    }

    private static String oneLine(Throwable e) {
        return JournalException.plain(e).replace('\n', ' ');
    }

    @Override
    public Integer call() {
        commandLine().usage(out);
        return BAD_USAGE;
    }

    int runSpec(RunSpec spec, RunHooks hooks, ShipOptions ship) {
        PoolRunner runner = new PoolRunner(spec, hooks, out);
        runner.shipTo(ship.target());
        active = runner;
        return runner.run();
    }

    /** {@code vigil run SPEC}. */
    @Command(name = "run", mixinStandardHelpOptions = true, header = "Run the pools of a JSON or YAML spec file.",
            description = "Run the pools of a JSON or YAML spec file (validated up front; every mistake listed).",
            exitCodeListHeading = "%nExit codes (the last line of a run, result:, says why):%n",
            exitCodeList = {"0:every close clean",
                "1:some close failed (its report is printed), a pool failed to start, children exited during the run,"
                        + " the journal could not be written to the end or was lost, or stdout could not be written",
                "2:bad usage or spec (every mistake listed, nothing started)",
                "130:stopped by Ctrl-C after every open pool was closed, journaled (143 by SIGTERM, 129 by SIGHUP,"
                        + " 138, 140, 142 by SIGUSR1, SIGUSR2, SIGALRM);"
                        + " a second one kills what is left at once",
                "141:a clean run whose stdout reader went away (| head): every pool was still closed"})
    static final class Run implements Callable<Integer> {
        @CommandLine.ParentCommand
        VigilCli cli;

        @CommandLine.Mixin
        SpecArguments specArguments;

        @CommandLine.Mixin
        ShipOptions ship;

        @Override
        public Integer call() {
            RunSpec spec = specArguments.read(cli.err);
            return spec == null ? BAD_USAGE : cli.runSpec(spec, RunHooks.NONE, ship);
        }
    }

    /**
     * {@code vigil reap JOURNAL_DIR}: ends what a run left on a journal dir (pools kept under escalation leak, or what
     * a crashed orchestrator left): the recovery of an orchestrator opening that dir, then its close. Exit 0 when
     * nothing is left alive (or there was nothing), 1 when something outlived the bounded wait, 2 on bad input.
     */
    @Command(name = "reap", mixinStandardHelpOptions = true,
            header = "Kill and journal what a run or a crash left on a journal dir.",
            description = "End what a run left on a journal dir (pools kept under escalation leak, or left by a crash):"
                    + " kill every process of its pools (cgroup.kill, or its process groups), journal it, free the"
                    + " mailboxes. Refuses (exit 2) while an orchestrator owns the dir.")
    static final class Reap implements Callable<Integer> {
        @CommandLine.ParentCommand
        VigilCli cli;

        @Parameters(paramLabel = "JOURNAL_DIR", description = "the journal directory of the run")
        Path journalDir;

        @Override
        public Integer call() {
            Path dir = journalDir.toAbsolutePath().normalize();
            try { // before: any directory was opened as a journal ('vigil reap /tmp' wrote an 80 MB queue file into /tmp,
                  // a 13 MB map and a lock file into /, and said "nothing to reap"; a file "does not exist")
                dev.vigil.journal.JournalDirectory.validate(dir);
            } catch (dev.vigil.journal.JournalException notAJournal) {
                cli.err.println("ERR: " + notAJournal.getMessage() + "; nothing done");
                return BAD_USAGE;
            }
            try (dev.vigil.pool.Orchestrator o = dev.vigil.pool.Orchestrator.builder().journalDir(dir).open()) {
                var recovered = o.recovery();
                if (recovered.isEmpty()) {
                    cli.out.println("nothing to reap: journal dir=" + dir + " has no leftovers");
                    return 0;
                }
                cli.out.println("reaped: " + recovered.get().describe());
                return recovered.get().everythingGone() ? 0 : 1;
            }
        }
    }

    /** {@code vigil session SPEC}: see {@link PoolSession}. */
    @Command(name = "session", mixinStandardHelpOptions = true,
            header = "Answer JSON-line requests on stdin for the pools of a spec.",
            description = "Start the pools of a spec once and take JSON-line requests on stdin (control, task, send, inside,"
                    + " gate, close), one JSON answer line each on stdout; end of input closes every pool (the spec's cycles and"
                    + " workload are not used). For test fixtures.")
    static final class Session implements Callable<Integer> {
        @CommandLine.ParentCommand
        VigilCli cli;

        @CommandLine.Mixin
        SpecArguments specArguments;

        @Override
        public Integer call() throws java.io.IOException {
            RunSpec spec = specArguments.read(cli.err);
            if (spec == null) {
                return BAD_USAGE;
            }
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in,
                    java.nio.charset.StandardCharsets.UTF_8));
            PoolSession session = new PoolSession(spec, cli.out, cli.err);
            cli.active = session;
            return session.run(in);
        }
    }

    /** {@code vigil demo}. */
    @Command(name = "demo", mixinStandardHelpOptions = true,
            header = "Run the embedded demo: four racks of chips closing concurrently.",
            description = "The embedded default: four racks of C, Java and Python chips closing concurrently over a few cycles,"
                    + " each child's teardown time drawn from the field distribution (median 1.4 s, p90 1.6 s, max 1.8 s) x --time-scale.")
    static final class Demo implements Callable<Integer> {
        @CommandLine.ParentCommand
        VigilCli cli;

        @Option(names = "--protocol", defaultValue = "sticky", description = "sticky (default) or legacy (reproduces the lost shutdown)")
        String protocol;

        static final String DEFAULT_TIME_SCALE = "0.1";
        static final String DEFAULT_CYCLES = "3";

        @Option(names = "--time-scale", defaultValue = DEFAULT_TIME_SCALE, description = "scales teardown times (default ${DEFAULT-VALUE})")
        double timeScale;

        @Option(names = "--cycles", defaultValue = DEFAULT_CYCLES, description = "start/close cycles (default ${DEFAULT-VALUE})")
        int cycles;

        @Option(names = "--journal", defaultValue = SpecReader.DEFAULT_JOURNAL_DIR, paramLabel = "DIR",
                description = "journal directory (default ${DEFAULT-VALUE})")
        String journal;

        @Option(names = "--seed", description = "seed of the teardown and in-flight draws (default: a new one each run,"
                + " printed, so that a run can be repeated)")
        Long seed;

        @CommandLine.Mixin
        ShipOptions ship;

        @Override
        public Integer call() {
            if (!SpecReader.PROTOCOLS.contains(protocol)) {
                throw new IllegalArgumentException("--protocol=" + protocol + " must be sticky or legacy");
            }
            if (!(timeScale > 0 && timeScale <= 10)) {
                throw new IllegalArgumentException("--time-scale=" + timeScale + " must be in (0, 10]");
            }
            if (cycles < 1) {
                throw new IllegalArgumentException("--cycles=" + cycles + " must be >= 1");
            }
            // A new seed each run: which children are slow, and (legacy) which lose their shutdown, differ from
            // run to run, as in the field; the printed seed repeats a run exactly.
            long drawn = seed != null ? seed : new java.security.SecureRandom().nextLong() >>> 1;
            cli.out.println("demo seed " + drawn + " (" + repeatCommand(protocol, cycles, timeScale, drawn) + " repeats these draws)");
            return cli.runSpec(DemoRun.spec(protocol, cycles, journal), DemoRun.hooks(protocol, cycles, timeScale, drawn), ship);
        }

        /**
         * The command that repeats a demo's draws: the seed and every option the draws depend on, where it is not the
         * default ({@code bin/vigil demo --seed 1} after a legacy run started a sticky one, which loses no shutdown).
         */
        static String repeatCommand(String protocol, int cycles, double timeScale, long seed) {
            return "bin/vigil demo" + (protocol.equals("sticky") ? "" : " --protocol " + protocol)
                    + (String.valueOf(cycles).equals(DEFAULT_CYCLES) ? "" : " --cycles " + cycles)
                    + (timeScale == Double.parseDouble(DEFAULT_TIME_SCALE) ? "" : " --time-scale " + timeScale)
                    + " --seed " + seed;
        }
    }
}
