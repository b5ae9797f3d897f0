package dev.vigil.e2e;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs bin/vigil and bin/vigil-replay as subprocesses (they are launchers, not pool children) with a bound. */
final class Launchers {
    static final Path ROOT = Path.of(System.getProperty("vigil.root", "..")).toAbsolutePath().normalize();

    private Launchers() {
    }

    /** What a finished launcher run printed and returned. */
    record Result(int exitCode, String out, String err) {
        @Override
        public String toString() {
            return "exit=" + exitCode + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
        }
    }

    static Result vigil(Path workDir, long timeoutSeconds, String... args) throws IOException, InterruptedException {
        return run(workDir, timeoutSeconds, "vigil", args);
    }

    static Result replay(Path workDir, long timeoutSeconds, String... args) throws IOException, InterruptedException {
        return run(workDir, timeoutSeconds, "vigil-replay", args);
    }

    static Process start(Path workDir, String launcher, String... args) throws IOException {
        return start(workDir, Map.of(), launcher, args);
    }

    /** The launcher with {@code env} added to its environment. */
    static Process start(Path workDir, Map<String, String> env, String launcher, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(ROOT.resolve("bin").resolve(launcher).toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("VIGIL_PYTHON", System.getProperty("vigil.python", "python3")); // the Python of python groups
        pb.environment().putAll(env);
        return pb.directory(workDir.toFile())
                .redirectOutput(workDir.resolve(launcher + ".out").toFile())
                .redirectError(workDir.resolve(launcher + ".err").toFile())
                .start();
    }

    static Result run(Path workDir, long timeoutSeconds, String launcher, String... args)
            throws IOException, InterruptedException {
        return run(workDir, timeoutSeconds, Map.of(), launcher, args);
    }

    static Result run(Path workDir, long timeoutSeconds, Map<String, String> env, String launcher, String... args)
            throws IOException, InterruptedException {
        Process p = start(workDir, env, launcher, args);
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(launcher + " " + String.join(" ", args) + " did not finish within " + timeoutSeconds
                    + " s\n" + collect(workDir, launcher, -1));
        }
        return collect(workDir, launcher, p.exitValue());
    }

    static Result collect(Path workDir, String launcher, int exitCode) throws IOException {
        return new Result(exitCode, Files.readString(workDir.resolve(launcher + ".out")),
                Files.readString(workDir.resolve(launcher + ".err")));
    }
}
