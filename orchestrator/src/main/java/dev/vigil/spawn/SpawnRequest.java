package dev.vigil.spawn;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What to start: argv (argv[0] is looked up on PATH like execvp), the environment (null = the
 * orchestrator's own), the working directory (null = the orchestrator's), and where stdin / stdout /
 * stderr go, and the cgroup (v2) directory the child joins before its exec (null = none: it stays
 * in the orchestrator's cgroup). Defaults: stdin {@link Redirect#DISCARD} (a child must never read
 * the orchestrator's stdin), stdout and stderr {@link Redirect#INHERIT}. With {@code doorbellPipe} the
 * child gets the read end of a fresh pipe as descriptor {@value #DOORBELL_FD} and the parent keeps the
 * write end ({@link ChildProcess#ringDoorbell()}): the doorbell of a child that cannot wait on a futex.
 * With {@code outlivesParent} ({@link #outlivingParent()}) the child may outlive the orchestrator's exit. With a
 * {@link ChildLog} ({@link #withLog}) stdout and stderr go to the child's own rotated log files instead.
 */
public record SpawnRequest(List<String> argv, Map<String, String> environment, Path workDir,
        Redirect stdin, Redirect stdout, Redirect stderr, Path cgroup, boolean doorbellPipe, boolean outlivesParent,
        ChildLog log) {
    /** The descriptor a doorbell pipe's read end has in the child. */
    public static final int DOORBELL_FD = dev.vigil.spawn.internal.ShimProtocol.DOORBELL_FD;

    public SpawnRequest(List<String> argv, Map<String, String> environment, Path workDir,
            Redirect stdin, Redirect stdout, Redirect stderr, Path cgroup) {
        this(argv, environment, workDir, stdin, stdout, stderr, cgroup, false, false, null);
    }

    public SpawnRequest(List<String> argv, Map<String, String> environment, Path workDir,
            Redirect stdin, Redirect stdout, Redirect stderr, Path cgroup, boolean doorbellPipe, boolean outlivesParent) {
        this(argv, environment, workDir, stdin, stdout, stderr, cgroup, doorbellPipe, outlivesParent, null);
    }

    public SpawnRequest {
        Objects.requireNonNull(argv, "argv");
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("spawn request argv is empty");
        }
        argv = List.copyOf(argv);
        environment = environment == null ? null : Map.copyOf(environment);
        Objects.requireNonNull(stdin, "stdin");
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        if (stdin.kind() == Redirect.Kind.WRITE || stdin.kind() == Redirect.Kind.APPEND) {
            throw new IllegalArgumentException("stdin redirect kind=" + stdin.kind() + " (use readFrom)");
        }
        if (stdout.kind() == Redirect.Kind.READ || stderr.kind() == Redirect.Kind.READ) {
            throw new IllegalArgumentException("stdout/stderr redirect kind=READ (use writeTo or appendTo)");
        }
    }

    public static SpawnRequest of(String... argv) {
        return of(List.of(argv));
    }

    public static SpawnRequest of(List<String> argv) {
        return new SpawnRequest(argv, null, null, Redirect.DISCARD, Redirect.INHERIT, Redirect.INHERIT, null);
    }

    public SpawnRequest withEnvironment(Map<String, String> newEnvironment) {
        return new SpawnRequest(argv, newEnvironment, workDir, stdin, stdout, stderr, cgroup, doorbellPipe, outlivesParent, log);
    }

    public SpawnRequest withWorkDir(Path newWorkDir) {
        return new SpawnRequest(argv, environment, newWorkDir, stdin, stdout, stderr, cgroup, doorbellPipe, outlivesParent, log);
    }

    public SpawnRequest withStdin(Redirect redirect) {
        return new SpawnRequest(argv, environment, workDir, redirect, stdout, stderr, cgroup, doorbellPipe, outlivesParent, log);
    }

    public SpawnRequest withStdout(Redirect redirect) {
        return new SpawnRequest(argv, environment, workDir, stdin, redirect, stderr, cgroup, doorbellPipe, outlivesParent, log);
    }

    public SpawnRequest withStderr(Redirect redirect) {
        return new SpawnRequest(argv, environment, workDir, stdin, stdout, redirect, cgroup, doorbellPipe, outlivesParent, log);
    }

    /** The child joins this cgroup (v2) directory before its exec (the shim writes 0 to its cgroup.procs). */
    public SpawnRequest inCgroup(Path cgroupDir) {
        return new SpawnRequest(argv, environment, workDir, stdin, stdout, stderr, cgroupDir, doorbellPipe, outlivesParent, log);
    }

    /** The child gets a doorbell pipe's read end as descriptor {@value #DOORBELL_FD}; the parent rings through its {@link ChildProcess}. */
    public SpawnRequest withDoorbellPipe() {
        return new SpawnRequest(argv, environment, workDir, stdin, stdout, stderr, cgroup, true, outlivesParent, log);
    }

    /**
     * The child may outlive the orchestrator's normal exit: the shim arms no PDEATHSIG for it (the close policy
     * leak keeps survivors alive; a crash still ends them through the guardian). Default: it dies with the JVM.
     */
    public SpawnRequest outlivingParent() {
        return new SpawnRequest(argv, environment, workDir, stdin, stdout, stderr, cgroup, doorbellPipe, true, log);
    }

    /**
     * stdout and stderr each to its own capped, rotated log file, written by a log writer the shim starts (no
     * orchestrator thread in the path); replaces the stdout and stderr redirects. Null: the redirects apply.
     */
    public SpawnRequest withLog(ChildLog childLog) {
        return new SpawnRequest(argv, environment, workDir, stdin, stdout, stderr, cgroup, doorbellPipe, outlivesParent,
                childLog);
    }

    /** stdout and stderr both to /dev/null (tests, benchmarks). */
    public SpawnRequest discardingOutput() {
        return new SpawnRequest(argv, environment, workDir, stdin, Redirect.DISCARD, Redirect.DISCARD, cgroup, doorbellPipe, outlivesParent, log);
    }

    /** argv joined by spaces, as error messages print it. */
    public String commandLine() {
        return String.join(" ", argv);
    }
}
