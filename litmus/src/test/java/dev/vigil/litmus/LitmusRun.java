package dev.vigil.litmus;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One bounded jcstress run in a forked JVM over this module's test class path, and its outcome table per test as
 * jcstress printed it ("RUN RESULTS": every result row of every test, summed over configurations). The JVM the
 * tests run in gets C2's scheduling randomizers (StressLCM, StressGCM, StressIGVN), so plain accesses get
 * reordered by the compiler where it may; the CPU does the rest (on x86-64, only store-load reordering).
 */
final class LitmusRun {
    static final String TEST_JVM_ARGS = "-XX:+UnlockDiagnosticVMOptions -XX:+StressLCM -XX:+StressGCM -XX:+StressIGVN";
    private static final Pattern TEST_LINE = Pattern.compile("^\\.+ \\[(OK|FAILED|ERROR)\\] (\\S+)\\s*$");
    private static final Pattern ROW = Pattern.compile("^\\s+(.+?)\\s+([\\d,]+)\\s+[<\\d.,]+%\\s+(Acceptable|Forbidden|Interesting|Unknown)\\s+(.*)$");

    /** One outcome row: the result tuple, how often it appeared, how the test classifies it. */
    record Row(String outcome, long samples, String expect, String description) {
    }

    /** A test's status and rows (rows only for tests jcstress details: interesting, failed, errors). */
    record TestResult(String name, String status, List<Row> rows) {
        long samples(String expect) {
            return rows.stream().filter(r -> r.expect().equals(expect)).mapToLong(Row::samples).sum();
        }

        long total() {
            return rows.stream().mapToLong(Row::samples).sum();
        }
    }

    record Outcome(int exitCode, Map<String, TestResult> tests, Path log, Duration elapsed) {
    }

    private LitmusRun() {
    }

    /** Runs the tests matching {@code selection} (a regex on test names) for {@code iterationMillis} per configuration. */
    static Outcome run(String selection, int iterationMillis, Path workDir, Duration limit) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path log = workDir.resolve("jcstress.log");
        String classPath = System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classPath, "org.openjdk.jcstress.Main",
                "-t", selection, "-sc", "false", "-f", "1", "-iters", "1", "-time", Integer.toString(iterationMillis),
                "-strideSize", Integer.toString(LitmusSuite.STRIDE_SIZE), "-strideCount", Integer.toString(LitmusSuite.STRIDE_COUNT),
                "-jvmArgs", TEST_JVM_ARGS, "-v", "-r", workDir.resolve("report").toString()));
        long start = System.nanoTime();
        // jcstress is a tool run to completion, not a pool child: ProcessBuilder is fine here.
        Process process = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("jcstress run exceeded its limit: limit=" + limit + " selection=" + selection + " log=" + log);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        return new Outcome(process.exitValue(), parse(Files.readAllLines(log, StandardCharsets.UTF_8)), log, elapsed);
    }

    static Map<String, TestResult> parse(List<String> lines) {
        Map<String, TestResult> tests = new LinkedHashMap<>();
        int at = lines.indexOf("RUN RESULTS:");
        TestResult current = null;
        for (int i = Math.max(at, 0); at >= 0 && i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher test = TEST_LINE.matcher(line);
            if (test.matches()) {
                current = new TestResult(test.group(2), test.group(1), new ArrayList<>());
                tests.put(current.name(), current);
                continue;
            }
            Matcher row = ROW.matcher(line);
            if (current != null && row.matches()) {
                current.rows().add(new Row(row.group(1).trim(), Long.parseLong(row.group(2).replace(",", "")), row.group(3), row.group(4).trim()));
            }
        }
        return tests;
    }
}
