package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Small journals committed under src/test/resources/fixtures/ (the legacy-mode lost-shutdown race, written by the real
 * JournalWriter) with golden closes / show / audit outputs: {@code legacy-race} with one MailboxTransition event per
 * transition (as journals were written before 2026-12-03 #4), {@code legacy-race-packed} the same scenario with its
 * transitions packed in MailboxTransitionBatch events of layout version 1 (24-byte records, 2026-12-03 #4 to #7; this
 * build cannot write it again: never regenerate it), {@code legacy-race-delta} packed as the ring drainer journals them
 * now (layout version 2, the delta encoding). Times in the outputs are
 * relative, so they never change. To regenerate after an intended output change: {@code mvn -pl replay-tool -am test
 * -Dtest=GoldenFixtureTest -Dvigil.replay.regenerateFixture=true -Dsurefire.failIfNoSpecifiedTests=false} (every
 * fixture but {@code legacy-race-packed}; or {@code =legacy-race-delta} for one of them: a journal written today has
 * today's cycle in its indexes), then review the diff.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GoldenFixtureTest {
    static final Path FIXTURES = Path.of(System.getProperty("vigil.root", "."), "replay-tool", "src", "test", "resources",
            "fixtures");
    static final Path FIXTURE = FIXTURES.resolve("legacy-race");
    static final String PACKED = "legacy-race-packed";
    static final String DELTA = "legacy-race-delta";

    @TempDir
    static Path tmp;

    @BeforeAll
    static void copyTheFixtures() throws IOException {
        for (String name : new String[] {"legacy-race", PACKED, DELTA}) {
            String regenerate = System.getProperty("vigil.replay.regenerateFixture", "");
            if (regenerate.equals("true") && !name.equals(PACKED) || regenerate.equals(name)) {
                regenerate(name);
            }
            JournalFiles.copyCompact(FIXTURES.resolve(name).resolve("journal"), journal(name));
        }
    }

    private static Path journal(String fixture) {
        return tmp.resolve(fixture).resolve("journal");
    }

    private static void regenerate(String name) throws IOException {
        Path fresh = tmp.resolve("fresh-" + name);
        if (name.equals(PACKED)) {
            throw new IllegalStateException(PACKED + " was written by an earlier layout; this build cannot write it again");
        }
        Scenarios.legacyRace(fresh, name.equals(DELTA));
        Path target = FIXTURES.resolve(name).resolve("journal");
        if (Files.exists(target)) {
            try (var files = Files.walk(target)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        JournalFiles.copyCompact(fresh, target);
        Files.writeString(FIXTURES.resolve(name).resolve("closes.txt"), CliRun.of("closes", target.toString()).out());
        Files.writeString(FIXTURES.resolve(name).resolve("show-1.txt"), CliRun.of("show", target.toString(), "1").out());
        Files.writeString(FIXTURES.resolve(name).resolve("audit.txt"), CliRun.of("audit", target.toString()).out());
    }

    private static String golden(String fixture, String name) throws IOException {
        return Files.readString(FIXTURES.resolve(fixture).resolve(name), StandardCharsets.UTF_8);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"legacy-race", PACKED, DELTA})
    void closesMatchesItsGoldenOutput(String fixture) throws IOException {
        CliRun run = CliRun.of("closes", journal(fixture).toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals(golden(fixture, "closes.txt"), run.out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"legacy-race", PACKED, DELTA})
    void showMatchesItsGoldenOutput(String fixture) throws IOException {
        CliRun run = CliRun.of("show", journal(fixture).toString(), "1");
        assertEquals(0, run.exit(), run::toString);
        assertEquals(golden(fixture, "show-1.txt"), run.out());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"legacy-race", PACKED, DELTA})
    void auditMatchesItsGoldenOutputAndExitsOne(String fixture) throws IOException {
        CliRun run = CliRun.of("audit", journal(fixture).toString());
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertEquals(golden(fixture, "audit.txt"), run.out());
        assertEquals("", run.err());
    }

    /** Packing changes where a transition is in the journal, nothing of what the replay makes of it. */
    @Test
    void thePackedJournalTellsTheSameStoryAsTheOneOfSingleEvents() throws IOException {
        assertEquals(golden("legacy-race", "closes.txt"), golden(PACKED, "closes.txt"));
        assertEquals(golden("legacy-race", "show-1.txt"), golden(PACKED, "show-1.txt"));
        assertEquals(withoutCitations(golden("legacy-race", "audit.txt")), withoutCitations(golden(PACKED, "audit.txt")));
    }

    /** The delta encoding (layout version 2) changes nothing either, not even a citation: same events, same places. */
    @Test
    void theDeltaEncodedJournalTellsTheSameStoryAsTheFixedOne() throws IOException {
        for (String output : new String[] {"closes.txt", "show-1.txt", "audit.txt"}) {
            assertEquals(golden(PACKED, output), golden(DELTA, output), output);
        }
    }

    /** An audit output without its journal indexes, positions and event count. */
    private static String withoutCitations(String audit) {
        return audit.replaceAll("index 0x[0-9a-f]+( position \\d+)?", "index").replaceAll("audit: \\d+ events", "audit:");
    }
}
