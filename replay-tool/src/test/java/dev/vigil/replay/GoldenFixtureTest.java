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

/**
 * A small journal committed under src/test/resources/fixtures/legacy-race (the legacy-mode
 * lost-shutdown race, written by the real JournalWriter) with golden closes / show / audit
 * outputs. Times in the outputs are relative, so they never change. To regenerate after an
 * intended output change: {@code mvn -pl replay-tool -am test -Dtest=GoldenFixtureTest
 * -Dvigil.replay.regenerateFixture=true -Dsurefire.failIfNoSpecifiedTests=false}, then review the diff.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GoldenFixtureTest {
    static final Path FIXTURE = Path.of(System.getProperty("vigil.root", "."), "replay-tool", "src", "test", "resources",
            "fixtures", "legacy-race");

    @TempDir
    static Path tmp;

    static Path journal;

    @BeforeAll
    static void copyTheFixture() throws IOException {
        if (Boolean.getBoolean("vigil.replay.regenerateFixture")) {
            regenerate();
        }
        journal = tmp.resolve("journal");
        JournalFiles.copyCompact(FIXTURE.resolve("journal"), journal);
    }

    private static void regenerate() throws IOException {
        Path fresh = tmp.resolve("fresh");
        Scenarios.legacyRace(fresh);
        Path target = FIXTURE.resolve("journal");
        if (Files.exists(target)) {
            try (var files = Files.walk(target)) {
                for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        JournalFiles.copyCompact(fresh, target);
        Files.writeString(FIXTURE.resolve("closes.txt"), CliRun.of("closes", target.toString()).out());
        Files.writeString(FIXTURE.resolve("show-1.txt"), CliRun.of("show", target.toString(), "1").out());
        Files.writeString(FIXTURE.resolve("audit.txt"), CliRun.of("audit", target.toString()).out());
    }

    private static String golden(String name) throws IOException {
        return Files.readString(FIXTURE.resolve(name), StandardCharsets.UTF_8);
    }

    @Test
    void closesMatchesItsGoldenOutput() throws IOException {
        CliRun run = CliRun.of("closes", journal.toString());
        assertEquals(0, run.exit(), run::toString);
        assertEquals(golden("closes.txt"), run.out());
    }

    @Test
    void showMatchesItsGoldenOutput() throws IOException {
        CliRun run = CliRun.of("show", journal.toString(), "1");
        assertEquals(0, run.exit(), run::toString);
        assertEquals(golden("show-1.txt"), run.out());
    }

    @Test
    void auditMatchesItsGoldenOutputAndExitsOne() throws IOException {
        CliRun run = CliRun.of("audit", journal.toString());
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        assertEquals(golden("audit.txt"), run.out());
        assertEquals("", run.err());
    }
}
