package dev.vigil.fleet;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.vigil.replay.ReplayCli;

/** The project's launchers as real processes, and the replay tool in-process, for the fleet tests. */
final class Cli {
    static final Path ROOT = Path.of(System.getProperty("vigil.root", "..")).toAbsolutePath().normalize();

    private Cli() {
    }

    /** What a finished command printed. */
    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit=" + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** A started launcher; its output goes to files beside {@code logDir}. */
    record Started(Process process, Path out, Path err) {
        Result await(long seconds) {
            try {
                if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                    throw new AssertionError("still running after " + seconds + " s: " + process.info().commandLine()
                            .orElse("?") + "\n" + read());
                }
                return read();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }

        Result read() {
            try {
                return new Result(process.isAlive() ? -1 : process.exitValue(), Files.readString(out), Files.readString(err));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** Every process started, so that a failed test leaves none behind ({@link #killAll}). */
    private static final List<Process> STARTED = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** SIGKILLs every launcher process this JVM started that is still alive (and its children). */
    static void killAll() {
        for (Process p : STARTED) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        STARTED.clear();
    }

    /** Starts {@code bin/NAME args...} with its output in {@code logDir/label.out|err}. */
    static Started start(Path logDir, String label, String launcher, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ROOT.resolve("bin").resolve(launcher).toString());
        cmd.addAll(Arrays.asList(args));
        Path out = logDir.resolve(label + ".out");
        Path err = logDir.resolve(label + ".err");
        try {
            Process p = new ProcessBuilder(cmd).directory(logDir.toFile()).redirectOutput(out.toFile())
                    .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            STARTED.add(p);
            return new Started(p, out, err);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Result run(Path logDir, String label, long seconds, String launcher, String... args) {
        return start(logDir, label, launcher, args).await(seconds);
    }

    /** {@code vigil-replay args...} in this JVM (the fleet module's provider is on the test class path). */
    static Result replay(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = ReplayCli.execute(o, e, args);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
