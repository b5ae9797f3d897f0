package dev.vigil.litmus;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The mailbox protocol's litmus tests (the {@code *Litmus} classes, docs/MAILBOX.md "Orderings"), run by jcstress
 * in a forked JVM. Every protocol test must pass (no forbidden outcome, no unknown one). Every weakened variant
 * (plain accesses, or the legacy plain store) is run beside it; where x86-64 can exhibit its forbidden outcome, the
 * variant must show it, or the test itself would be unable to fail. The other weakened variants need a reordering
 * x86-64's total store order never makes (store-store, load-load): they are run and counted, and an aarch64 host
 * would be the place to see them.
 */
class LitmusSuiteTest {
    /** Weakened variants whose forbidden outcome x86-64 (or any CPU) exhibits: a race, or store-load reordering. */
    static final Set<String> SHOWN_ON_X86 = Set.of("dev.vigil.litmus.ShutdownWordLitmus.LegacyPlainStore");

    private static final Path WORK = Path.of(System.getProperty("project.build.directory", "target"), "litmus");

    /** The default suite: every litmus test, 100 ms per configuration (two JVM configurations per test). */
    @Test
    void everyProtocolOrderingHoldsAndEveryWeakenedVariantThatX86CanBreakBreaks() throws Exception {
        check(LitmusRun.run(".*", 100, WORK.resolve("bounded"), Duration.ofMinutes(5)));
    }

    /** Longer: 2 s per configuration, for the weakened variants that need the compiler's luck on x86-64. */
    @Test
    @Tag("slow")
    void theLongRunAgrees() throws Exception {
        check(LitmusRun.run(".*", 2000, WORK.resolve("long"), Duration.ofMinutes(20)));
    }

    private static void check(LitmusRun.Outcome run) throws IOException {
        Set<String> expected = listedTests();
        assertFalse(expected.isEmpty(), "no litmus test in META-INF/TestList: did jcstress's annotation processor run?");
        Map<String, LitmusRun.TestResult> tests = run.tests();
        List<String> report = new ArrayList<>();
        report.add(String.format("litmus: %d tests in %d s, log=%s", tests.size(), run.elapsed().toSeconds(), run.log()));
        for (String name : expected) {
            LitmusRun.TestResult result = tests.get(name);
            if (result == null) {
                report.add("  " + name + ": no result");
                continue;
            }
            report.add(String.format("  %-75s %-6s forbidden=%d interesting=%d samples=%s", name.replace("dev.vigil.litmus.", ""), result.status(),
                    result.samples("Forbidden"), result.samples("Interesting"), result.rows().isEmpty() ? "(not detailed)" : Long.toString(result.total())));
        }
        String summary = String.join("\n", report);
        System.out.println(summary);
        Files.writeString(run.log().resolveSibling("summary.txt"), summary + "\n", StandardCharsets.UTF_8);

        assertEquals(expected, tests.keySet().stream().filter(expected::contains).collect(TreeSet::new, Set::add, Set::addAll),
                "tests without a result (left: listed, right: reported); see " + run.log() + "\n" + summary);
        for (LitmusRun.TestResult result : tests.values()) {
            assertEquals("OK", result.status(), () -> result.name() + " " + result.status() + ": " + result.rows() + "\n" + summary);
        }
        assertEquals(0, run.exitCode(), () -> "jcstress exit status; see " + run.log() + "\n" + summary);
        for (String name : SHOWN_ON_X86) {
            LitmusRun.TestResult result = tests.get(name);
            assertTrue(result != null && result.samples("Interesting") > 0,
                    () -> name + " never showed its forbidden outcome: the litmus test could not fail\n" + summary);
        }
    }

    /** The tests jcstress's annotation processor registered (META-INF/TestList, one line per test, name first). */
    static Set<String> listedTests() throws IOException {
        Set<String> names = new TreeSet<>();
        Pattern first = Pattern.compile("^JCTEST(\\d+)S");
        try (InputStream in = LitmusSuiteTest.class.getClassLoader().getResourceAsStream("META-INF/TestList")) {
            assertNotNull(in, "META-INF/TestList missing from the test class path");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                Matcher m = first.matcher(line);
                if (m.find()) {
                    names.add(line.substring(m.end(), m.end() + Integer.parseInt(m.group(1))));
                }
            }
        }
        return names;
    }
}
