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
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openjdk.jcstress.annotations.Expect;

/**
 * The mailbox protocol's litmus tests (the {@code *Litmus} classes, docs/MAILBOX.md "Orderings"). Every protocol
 * test must pass: no forbidden outcome, no unknown one. Every weakened variant (plain or release/acquire accesses,
 * or the legacy plain store) runs beside it; where x86-64 can exhibit its forbidden outcome (a race, or store-load
 * reordering), the variant must show it, or the protocol test beside it could not fail either. The other weakened
 * variants need a store-store, load-load or load-store reordering that x86-64 hardware never makes: they run and
 * are counted, and show something only when the compiler reorders.
 *
 * <p>Two runners over the same test classes: {@link InProcessLitmus} (this JVM, no forks: the default suite, every
 * test) and jcstress itself ({@link LitmusRun}: a forked JVM per test and configuration, C2's scheduling
 * randomizers on; the slow suite). jcstress is slow-only because its cost is JVM launches: about 40 for four
 * tests (its VM probes, then one fork per test and configuration), which took 540 s under load 35 on the shared
 * 2-core machine and left the Dekker variant 27 samples, too few to assert anything.
 */
class LitmusSuiteTest {
    /** Weakened variants whose forbidden outcome x86-64 exhibits: a race, or store-load reordering. */
    static final Set<String> SHOWN_ON_X86 = Set.of("dev.vigil.litmus.ShutdownWordLitmus.LegacyPlainStore",
            "dev.vigil.litmus.DoorbellLitmus.SleepingFlagReleaseAcquire");

    private static final Path WORK = Path.of(System.getProperty("project.build.directory", "target"), "litmus");

    /** Every litmus test in this JVM: 300 ms each, a weakened x86 variant until it broke (at most 10 s). */
    @Test
    void everyProtocolOrderingHoldsAndEveryWeakenedVariantThatX86CanBreakBreaks() throws Exception {
        Map<String, InProcessLitmus.Tally> tallies = new TreeMap<>();
        for (Map.Entry<String, String> test : listedTests().entrySet()) {
            boolean mustBreak = SHOWN_ON_X86.contains(test.getKey());
            Class<?> type = Class.forName(test.getValue());
            tallies.put(test.getKey(), mustBreak
                    ? InProcessLitmus.run(type, Duration.ofSeconds(10), t -> t.samples(Expect.ACCEPTABLE_INTERESTING) > 0 && t.total() >= 100_000)
                    : InProcessLitmus.run(type, Duration.ofMillis(300), t -> false));
        }
        List<String> report = new ArrayList<>();
        report.add("litmus, in process: " + tallies.size() + " tests");
        tallies.forEach((name, t) -> report.add(String.format("  %-60s samples=%,d forbidden=%d interesting=%d (%d ms) %s", shortName(name),
                t.total(), t.forbidden(), t.samples(Expect.ACCEPTABLE_INTERESTING), t.elapsed().toMillis(), t.counts())));
        String summary = String.join("\n", report);
        System.out.println(summary);
        Files.createDirectories(WORK);
        Files.writeString(WORK.resolve("in-process-summary.txt"), summary + "\n", StandardCharsets.UTF_8);

        tallies.forEach((name, t) -> assertEquals(0, t.forbidden(), () -> name + " showed a forbidden outcome: " + t.counts() + "\n" + summary));
        for (String name : SHOWN_ON_X86) {
            InProcessLitmus.Tally t = tallies.get(name);
            assertTrue(t != null && t.samples(Expect.ACCEPTABLE_INTERESTING) > 0,
                    () -> name + " never showed its forbidden outcome: the litmus test could not fail\n" + summary);
        }
    }

    /** jcstress on every litmus test, 1 s per configuration (two per test): the message-passing variants get the compiler's chances. */
    @Test
    @Tag("slow")
    void jcstressAgreesOnEveryLitmusTest() throws Exception {
        check(LitmusRun.run(".*", 1000, WORK.resolve("jcstress-all"), Duration.ofMinutes(30)), Pattern.compile(".*"));
    }

    private static void check(LitmusRun.Outcome run, Pattern selection) throws IOException {
        Set<String> expected = new TreeSet<>();
        listedTests().keySet().stream().filter(name -> selection.matcher(name).find()).forEach(expected::add);
        assertFalse(expected.isEmpty(), "no litmus test matches: selection=" + selection);
        Map<String, LitmusRun.TestResult> tests = run.tests();
        List<String> report = new ArrayList<>();
        report.add(String.format("litmus, jcstress: %d tests in %d s, log=%s", tests.size(), run.elapsed().toSeconds(), run.log()));
        for (String name : expected) {
            LitmusRun.TestResult result = tests.get(name);
            report.add(result == null ? "  " + shortName(name) + ": no result"
                    : String.format("  %-60s %-6s samples=%,d forbidden=%d interesting=%d", shortName(name), result.status(), result.total(),
                            result.samples("Forbidden") + result.samples("Unknown"), result.samples("Interesting")));
        }
        String summary = String.join("\n", report);
        System.out.println(summary);
        Files.writeString(run.log().resolveSibling("summary.txt"), summary + "\n", StandardCharsets.UTF_8);

        assertTrue(tests.keySet().containsAll(expected), () -> "tests without a result; see " + run.log() + "\n" + summary);
        for (LitmusRun.TestResult result : tests.values()) {
            assertEquals("OK", result.status(), () -> result.name() + " " + result.status() + ": " + result.rows() + "\n" + summary);
        }
        assertEquals(0, run.exitCode(), () -> "jcstress exit status; see " + run.log() + "\n" + summary);
        for (String name : SHOWN_ON_X86) {
            if (expected.contains(name)) {
                assertTrue(tests.get(name).samples("Interesting") > 0,
                        () -> name + " never showed its forbidden outcome: the litmus test could not fail\n" + summary);
            }
        }
    }

    private static String shortName(String name) {
        return name.replace("dev.vigil.litmus.", "");
    }

    /**
     * The tests jcstress's annotation processor registered (META-INF/TestList, one line per test: "JCTEST", then
     * length-prefixed fields, the test's name first and its binary class name second), name to class name.
     */
    static Map<String, String> listedTests() throws IOException {
        Map<String, String> tests = new TreeMap<>();
        Pattern field = Pattern.compile("(\\d+)S");
        try (InputStream in = LitmusSuiteTest.class.getClassLoader().getResourceAsStream("META-INF/TestList")) {
            assertNotNull(in, "META-INF/TestList missing from the test class path: did jcstress's annotation processor run?");
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.startsWith("JCTEST")) {
                    continue;
                }
                Matcher m = field.matcher(line);
                int at = "JCTEST".length();
                String[] two = new String[2];
                for (int f = 0; f < 2 && m.find(at) && m.start() == at; f++) {
                    int length = Integer.parseInt(m.group(1));
                    two[f] = line.substring(m.end(), m.end() + length);
                    at = m.end() + length;
                }
                tests.put(two[0], two[1]);
            }
        }
        assertFalse(tests.isEmpty(), "no litmus test in META-INF/TestList");
        return tests;
    }
}
