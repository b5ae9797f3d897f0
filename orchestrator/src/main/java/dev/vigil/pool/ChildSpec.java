package dev.vigil.pool;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How to start one child of a group: its kind, its command or handler, extra environment variables,
 * and (plain executables) the signal close stops it with.
 *
 * <p>{@code program} is: the handler class name for JAVA; the program path for C (null = the demo
 * child {@code vigil-demo-child} of the native build directory); argv[0] otherwise.
 */
public record ChildSpec(ChildKind kind, String program, List<String> args, Map<String, String> env, int stopSignal) {
    /** SIGTERM, the default stop signal of a plain executable. */
    public static final int SIGTERM = 15;
    /** Name of the C demo child in the native build directory. */
    public static final String DEMO_CHILD = "vigil-demo-child";

    public ChildSpec {
        Objects.requireNonNull(kind, "kind");
        args = List.copyOf(args);
        env = Map.copyOf(env);
        if (kind != ChildKind.C && (program == null || program.isBlank())) {
            throw new IllegalArgumentException("child kind=" + kind + " needs a program");
        }
        if (stopSignal < 1 || stopSignal > 64) {
            throw new IllegalArgumentException("stopSignal=" + stopSignal + " must be a signal number 1..64");
        }
    }

    /** A Java child running {@code handlerClass} (a {@code dev.vigil.child.ChildHandler} on the orchestrator's class path). */
    public static ChildSpec java(String handlerClass, String... args) {
        return new ChildSpec(ChildKind.JAVA, handlerClass, List.of(args), Map.of(), SIGTERM);
    }

    /** The C demo child with {@code args} (its flags, e.g. {@code --exit-code 42}). */
    public static ChildSpec cDemo(String... args) {
        return new ChildSpec(ChildKind.C, null, List.of(args), Map.of(), SIGTERM);
    }

    /** A C program linked with the C child runtime. */
    public static ChildSpec c(Path program, String... args) {
        return new ChildSpec(ChildKind.C, program.toString(), List.of(args), Map.of(), SIGTERM);
    }

    /** Any executable that speaks the mailbox protocol. */
    public static ChildSpec mailboxExec(String program, String... args) {
        return new ChildSpec(ChildKind.MAILBOX_EXEC, program, List.of(args), Map.of(), SIGTERM);
    }

    /** A plain executable, stopped with SIGTERM unless {@link #withStopSignal} says otherwise. */
    public static ChildSpec exec(String program, String... args) {
        return new ChildSpec(ChildKind.EXEC, program, List.of(args), Map.of(), SIGTERM);
    }

    public ChildSpec withStopSignal(int signal) {
        return new ChildSpec(kind, program, args, env, signal);
    }

    /** Adds environment variables (over the orchestrator's own; the VIGIL_* handoff always wins). */
    public ChildSpec withEnv(Map<String, String> more) {
        Map<String, String> merged = new LinkedHashMap<>(env);
        merged.putAll(more);
        return new ChildSpec(kind, program, args, merged, stopSignal);
    }

    public ChildSpec withEnv(String name, String value) {
        return withEnv(Map.of(name, value));
    }

    /** The argv that starts this child. */
    List<String> argv(Path nativeDir, String javaBinary, String childClassPath) {
        List<String> argv = new ArrayList<>();
        switch (kind) {
            case JAVA -> {
                argv.add(javaBinary);
                // A child JVM needs no JIT tiers or parallel GC to serve a mailbox; this halves its start time.
                argv.add("-XX:TieredStopAtLevel=1");
                argv.add("-XX:+UseSerialGC");
                argv.add("-Xshare:auto");
                argv.add("-cp");
                argv.add(childClassPath);
                argv.add("dev.vigil.child.ChildMain");
                argv.add(program);
            }
            case C -> argv.add(program != null ? program : nativeDir.resolve(DEMO_CHILD).toString());
            default -> argv.add(program);
        }
        argv.addAll(args);
        return argv;
    }
}
