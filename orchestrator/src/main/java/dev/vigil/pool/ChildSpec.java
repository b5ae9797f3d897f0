package dev.vigil.pool;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * How to start one child of a group: its kind, its command or handler, extra environment variables,
 * where the user's code is, and (plain executables) the signal close stops it with.
 *
 * <p>{@code program} is: the handler class name for JAVA ({@code dev.vigil.child.ChildHandler}); the
 * handler for PYTHON ({@code module:Class}); the program path for C (null = the demo child
 * {@code vigil-demo-child} of the native build directory); argv[0] otherwise.
 *
 * <p>{@code classPath} is where the user's handler lives: JAVA puts it after the orchestrator's own
 * classes on the child's {@code -cp}; PYTHON puts it first on the child's {@code PYTHONPATH}.
 * {@code runtimeOptions} go to the child's interpreter before its main class or module (JVM options for
 * JAVA, interpreter options such as {@code -X dev} for PYTHON).
 */
public record ChildSpec(ChildKind kind, String program, List<String> args, Map<String, String> env, int stopSignal,
        List<String> classPath, List<String> runtimeOptions) {
    /** SIGTERM, the default stop signal of a plain executable. */
    public static final int SIGTERM = dev.vigil.close.decision.EscalationStep.SIGTERM;
    /** Name of the C demo child in the native build directory. */
    public static final String DEMO_CHILD = "vigil-demo-child";
    /** The Python child runtime's entry module: {@code python3 -m vigil_child HANDLER}. */
    public static final String PYTHON_MAIN_MODULE = "vigil_child";
    /** The Python demo handler, the twin of {@code dev.vigil.child.demo.DemoHandler}. */
    public static final String PYTHON_DEMO_HANDLER = "vigil_child.demo:DemoHandler";

    public ChildSpec {
        Objects.requireNonNull(kind, "kind");
        args = List.copyOf(argList(Objects.requireNonNull(args, "args").toArray(String[]::new)));
        env = ChildEnvironment.of(Objects.requireNonNull(env, "env")); // each variable checked once, when added
        classPath = List.copyOf(Objects.requireNonNull(classPath, "classPath"));
        runtimeOptions = List.copyOf(Objects.requireNonNull(runtimeOptions, "runtimeOptions"));
        if (kind != ChildKind.C && (program == null || program.isBlank())) {
            throw new IllegalArgumentException("child kind=" + kind + " needs a program");
        }
        String badSignal = whyNotStopSignal(stopSignal);
        if (badSignal != null) {
            throw new IllegalArgumentException("stopSignal=" + stopSignal + " " + badSignal);
        }
        if (!kind.runsUserCode() && (!classPath.isEmpty() || !runtimeOptions.isEmpty())) {
            throw new IllegalArgumentException("child kind=" + kind + " takes no class path or runtime options (JAVA and PYTHON only)");
        }
        List<String> strings = new java.util.ArrayList<>(args);
        strings.addAll(runtimeOptions);
        strings.addAll(classPath);
        if (program != null) {
            strings.add(program);
        }
        for (String s : strings) {
            if (whyNotExecString(s) != null) {
                String shown = dev.vigil.journal.JournalException.printable(s);
                throw new IllegalArgumentException("child argument '" + (shown.length() <= 100 ? shown
                        : shown.substring(0, 100) + "...") + "' " + whyNotExecString(s));
            }
        }
    }

    /**
     * Null when {@code s} reaches the child's exec whole, else why not: a NUL ends a C string, so exec would cut it
     * there without a word ("x\u0000y" reached the child as "x").
     */
    public static String whyNotExecString(String s) {
        String nul = whyNotCString(s);
        return nul != null ? nul : dev.vigil.spawn.ExecLimits.whyTooLong(s);
    }

    private static String whyNotCString(String s) {
        return s.indexOf('\0') >= 0 ? "holds a NUL character (\\u0000): exec would cut it there" : null;
    }

    /**
     * Null when {@code name=value} reaches the child as that variable, else why not: an empty name, or one holding
     * '=' (the child would see the variable before it, {@code X=Y} with 1 read as X set to "Y=1"), or a NUL.
     */
    public static String whyNotEnvironmentVariable(String name, String value) {
        if (name.isEmpty()) {
            return "name is empty: a variable needs a name";
        }
        if (name.indexOf('=') >= 0) {
            return "name '" + dev.vigil.journal.JournalException.printable(name) + "' holds '=': the child would read it as variable '" + name.substring(0,
                    name.indexOf('=')) + "'";
        }
        String bad = whyNotCString(name) != null ? whyNotCString(name) : whyNotCString(value);
        if (bad == null) {
            bad = dev.vigil.spawn.ExecLimits.whyTooLong(name + "=" + value); // the child's exec takes NAME=value whole
        }
        return bad == null ? null : "variable " + dev.vigil.journal.JournalException.printable(name) + " " + bad;
    }

    /**
     * A Java child running {@code handlerClass}, a {@code dev.vigil.child.ChildHandler}; add where its
     * class lives with {@link #withClassPath} unless it is on the orchestrator's own class path.
     */
    public static ChildSpec java(String handlerClass, String... args) {
        return new ChildSpec(ChildKind.JAVA, handlerClass, argList(args), Map.of(), SIGTERM, List.of(), List.of());
    }

    /**
     * A Python child ({@code python3 -m vigil_child HANDLER}) running {@code handler}, a class named
     * {@code module:Class} (or {@code module.Class}); add where its module lives with {@link #withClassPath}.
     */
    public static ChildSpec python(String handler, String... args) {
        return new ChildSpec(ChildKind.PYTHON, handler, argList(args), Map.of(), SIGTERM, List.of(), List.of());
    }

    /** The C demo child with {@code args} (its flags, e.g. {@code --exit-code 42}). */
    public static ChildSpec cDemo(String... args) {
        return new ChildSpec(ChildKind.C, null, argList(args), Map.of(), SIGTERM, List.of(), List.of());
    }

    /** A C program linked with the C child runtime. */
    public static ChildSpec c(Path program, String... args) {
        return new ChildSpec(ChildKind.C, program.toString(), argList(args), Map.of(), SIGTERM, List.of(), List.of());
    }

    /** Any executable that speaks the mailbox protocol. */
    public static ChildSpec mailboxExec(String program, String... args) {
        return new ChildSpec(ChildKind.MAILBOX_EXEC, program, argList(args), Map.of(), SIGTERM, List.of(), List.of());
    }

    /** A plain executable, stopped with SIGTERM unless {@link #withStopSignal} says otherwise. */
    public static ChildSpec exec(String program, String... args) {
        return new ChildSpec(ChildKind.EXEC, program, argList(args), Map.of(), SIGTERM, List.of(), List.of());
    }

    /**
     * Null when a close can end a child with {@code signal}, else why not: a number outside 1..64, or SIGSTOP, which
     * only pauses the child (the close then waited out its window and grace, and diagnosed a child "stopped by a
     * debugger or a tracer" that the close itself had stopped).
     */
    public static String whyNotStopSignal(int signal) {
        if (signal < 1 || signal > 64) {
            return "must be a signal number 1..64";
        }
        if (signal == jnr.constants.platform.Signal.SIGSTOP.intValue()) { // pauses a process, cannot be caught
            return "is SIGSTOP: it pauses a process and never ends it; use one the program exits on (TERM, INT, QUIT; KILL"
                    + " ends it at once)";
        }
        return null;
    }

    public ChildSpec withStopSignal(int signal) {
        return new ChildSpec(kind, program, args, env, signal, classPath, runtimeOptions);
    }

    /** Adds environment variables (over the orchestrator's own; the VIGIL_* handoff always wins). */
    public ChildSpec withEnv(Map<String, String> more) {
        return new ChildSpec(kind, program, args, ChildEnvironment.of(env).plus(more), stopSignal, classPath, runtimeOptions);
    }

    public ChildSpec withEnv(String name, String value) {
        return withEnv(Map.of(name, value));
    }

    /** Adds class path entries (JAVA: jars or class directories; PYTHON: directories holding the handler's module). */
    public ChildSpec withClassPath(Path... entries) {
        return withClassPath(Stream.of(entries).map(Path::toString).toList());
    }

    /** Adds class path entries, each one path (no separators inside). */
    public ChildSpec withClassPath(List<String> entries) {
        List<String> more = new ArrayList<>(classPath);
        more.addAll(entries);
        return new ChildSpec(kind, program, args, env, stopSignal, more, runtimeOptions);
    }

    /** Adds JVM options of a JAVA child (e.g. {@code -Xmx256m}, {@code -Dkey=value}), placed before its main class. */
    public ChildSpec withJvmOptions(String... options) {
        if (kind != ChildKind.JAVA) {
            throw new IllegalArgumentException("JVM options are for kind=JAVA, not kind=" + kind);
        }
        return withRuntimeOptions(List.of(options));
    }

    /** Adds interpreter options (JAVA: JVM options; PYTHON: options of python3 such as {@code -X dev}). */
    public ChildSpec withRuntimeOptions(List<String> options) {
        List<String> more = new ArrayList<>(runtimeOptions);
        more.addAll(options);
        return new ChildSpec(kind, program, args, env, stopSignal, classPath, more);
    }

    /** The argv that starts this child. */
    List<String> argv(ChildRuntimes runtimes) {
        List<String> argv = new ArrayList<>();
        switch (kind) {
            case JAVA -> {
                argv.add(runtimes.javaBinary());
                // A child JVM needs no JIT tiers or parallel GC to serve a mailbox; this halves its start time.
                argv.add("-XX:TieredStopAtLevel=1");
                argv.add("-XX:+UseSerialGC");
                argv.add("-Xshare:auto");
                // An idle child costs what its JVM's own timers cost (docs/BENCHMARKS.md, "Idle children"): no 50 ms
                // perf-data sampler (and no hsperfdata file per child), no periodic safepoint and no timed monitor
                // deflation (0: the VM thread and the deflation thread wait until there is work, not 1 s and 250 ms).
                // What still wakes an idle child JVM: its C1 compiler thread and the chunk-pool cleaner, every 5 s each.
                argv.add("-XX:-UsePerfData");
                argv.add("-XX:+UnlockDiagnosticVMOptions");
                argv.add("-XX:GuaranteedSafepointInterval=0");
                argv.add("-XX:AsyncDeflationInterval=0");
                argv.addAll(runtimeOptions); // after the defaults: a user's option wins
                argv.add("-cp");
                List<String> cp = new ArrayList<>();
                cp.add(runtimes.javaClassPath());
                cp.addAll(classPath);
                argv.add(String.join(File.pathSeparator, cp));
                argv.add("dev.vigil.child.ChildMain");
                argv.add(program);
            }
            case PYTHON -> {
                argv.add(runtimes.pythonBinary());
                argv.addAll(runtimeOptions);
                argv.add("-m");
                argv.add(PYTHON_MAIN_MODULE);
                argv.add(program);
            }
            case C -> argv.add(program != null ? program : runtimes.nativeDir().resolve(DEMO_CHILD).toString());
            default -> argv.add(program);
        }
        argv.addAll(args);
        return argv;
    }

    /**
     * Null when exec takes a child of this spec whole, its strings and their pointers within the room exec gives
     * ({@link dev.vigil.spawn.ExecLimits#space}, from this process's stack limit, which the child inherits), with the
     * orchestrator's environment {@code inherited} and {@link dev.vigil.spawn.ExecLimits#SPAWN_RESERVE} kept for what
     * the spawn adds; else the sizes, in one line. Checked when a spec is read: before, a spec too large failed the
     * pool's start at its first spawn (E2BIG).
     */
    public String whyNotExecSize(ChildRuntimes runtimes, Map<String, String> inherited) {
        List<String> argv = argv(runtimes);
        Map<String, String> all = environment(runtimes, inherited);
        Map<String, String> kept = new java.util.HashMap<>(inherited);
        kept.keySet().retainAll(all.keySet());
        kept.keySet().removeAll(env.keySet());
        long argBytes = dev.vigil.spawn.ExecLimits.bytes(argv);
        long envBytes = dev.vigil.spawn.ExecLimits.bytes(env);
        long inheritedBytes = dev.vigil.spawn.ExecLimits.bytes(kept);
        long runtimeBytes = dev.vigil.spawn.ExecLimits.bytes(all) - envBytes - inheritedBytes;
        long pointers = (long) dev.vigil.spawn.ExecLimits.POINTER * (argv.size() + all.size());
        long total = argBytes + dev.vigil.spawn.ExecLimits.bytes(argv.get(0)) + envBytes + inheritedBytes + runtimeBytes
                + pointers + dev.vigil.spawn.ExecLimits.SPAWN_RESERVE;
        long space = dev.vigil.spawn.ExecLimits.space(dev.vigil.spawn.ExecLimits.stackLimit());
        if (total <= space) {
            return null;
        }
        return "too large for exec (E2BIG): a child's exec would take " + total + " bytes, more than the "
                + dev.vigil.spawn.ExecLimits.spaceHere() + " exec takes: arguments " + argBytes + " bytes in "
                + argv.size() + " string(s) and the program's name again, env " + envBytes + " bytes in " + env.size()
                + " variable(s), the orchestrator's environment " + inheritedBytes + " bytes in " + kept.size()
                + " variable(s)" + (runtimeBytes > 0 ? ", the runtime's variables " + runtimeBytes + " bytes" : "")
                + ", pointers " + pointers + " bytes, kept for the spawn's own " + dev.vigil.spawn.ExecLimits.SPAWN_RESERVE
                + " bytes";
    }

    /**
     * The environment a child of this spec starts with, before its mailbox handoff: {@code inherited} (the
     * orchestrator's own, without HotSpot's suspend signal), then what its runtime adds, then {@link #env}.
     */
    Map<String, String> environment(ChildRuntimes runtimes, Map<String, String> inherited) {
        Map<String, String> out = new java.util.HashMap<>(inherited);
        out.remove(ChildRuntimes.HOTSPOT_SUSPEND_SIGNAL_ENV);
        out.putAll(runtimeEnv(runtimes, out));
        out.putAll(env);
        return out;
    }

    /**
     * The environment this spec adds for its runtime: PYTHON children get {@code PYTHONPATH} (the user's
     * entries, then the Vigil Python package, then what the orchestrator had) and the C runtime library to load.
     */
    Map<String, String> runtimeEnv(ChildRuntimes runtimes, Map<String, String> inherited) {
        if (kind != ChildKind.PYTHON) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        List<String> path = new ArrayList<>(classPath);
        runtimes.pythonPackageDir().ifPresent(dir -> path.add(dir.toString()));
        String before = inherited.get("PYTHONPATH");
        if (before != null && !before.isBlank()) {
            path.add(before);
        }
        if (!path.isEmpty()) {
            out.put("PYTHONPATH", String.join(File.pathSeparator, path));
        }
        out.put(ChildRuntimes.PYTHON_LIBRARY_ENV, runtimes.childLibrary().toString());
        return out;
    }

    /** {@code args} as a list; a null one is named ("args[1] is null") rather than a bare NullPointerException. */
    private static List<String> argList(String... args) {
        Objects.requireNonNull(args, "args");
        for (int i = 0; i < args.length; i++) {
            if (args[i] == null) {
                throw new NullPointerException("args[" + i + "] is null");
            }
        }
        return List.of(args);
    }
}
