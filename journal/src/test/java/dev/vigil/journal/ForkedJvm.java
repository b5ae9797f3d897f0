package dev.vigil.journal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM started by a test with the module's test class path and the Chronicle flags
 * ({@code java @target/jvm.options}); its stdout lines are queued for the test to wait on.
 * Not a pool child: a helper process, so ProcessBuilder is fine here.
 */
final class ForkedJvm implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    private ForkedJvm(Process process) {
        this.process = process;
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException ignored) {
                // the process went away; what it printed is in the queue
            }
        }, "forked-jvm-stdout-" + process.pid());
        pump.setDaemon(true);
        pump.start();
    }

    static ForkedJvm start(Path workDir, Class<?> mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("@" + System.getProperty("vigil.jvmOptionsFile"));
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(testClassPath());
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        try {
            Path log = Files.createTempFile(workDir, "forked-", ".stderr");
            return new ForkedJvm(new ProcessBuilder(cmd).directory(workDir.toFile())
                    .redirectError(log.toFile()).start());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The dependency class path from surefire plus this module's own classes. */
    static String testClassPath() {
        Path file = Path.of(System.getProperty("vigil.testClasspathFile"));
        Path target = file.getParent();
        try {
            String deps = Files.readString(file).trim();
            return deps + java.io.File.pathSeparator + target.resolve("classes") + java.io.File.pathSeparator
                    + target.resolve("test-classes");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for a stdout line matching {@code wanted}; fails if the process ends or time runs out first. */
    String awaitLine(Predicate<String> wanted, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("pid=" + process.pid() + " printed no wanted line within " + timeoutMillis
                        + " ms; saw " + tail());
            }
            String line = lines.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)), TimeUnit.NANOSECONDS);
            if (line != null) {
                seen.add(line);
                if (wanted.test(line)) {
                    return line;
                }
            } else if (!process.isAlive() && lines.isEmpty()) {
                throw new AssertionError("pid=" + process.pid() + " exited with " + process.exitValue()
                        + " before printing a wanted line; saw " + tail());
            }
        }
    }

    /** Waits for the process to end by itself and returns its exit code. */
    int awaitExit(long timeoutMillis) throws InterruptedException {
        if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
            throw new AssertionError("pid=" + process.pid() + " still running after " + timeoutMillis + " ms");
        }
        return process.exitValue();
    }

    /** SIGKILL (ProcessHandle.destroyForcibly is kill -9 on Linux), then wait for it to be gone. */
    void kill9() throws InterruptedException {
        process.toHandle().destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError("pid=" + process.pid() + " survived SIGKILL for 10 s");
        }
    }

    long pid() {
        return process.pid();
    }

    private String tail() {
        int from = Math.max(0, seen.size() - 5);
        return seen.subList(from, seen.size()).toString();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.toHandle().destroyForcibly();
        }
    }
}
