package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** bin/vigil-replay runs the packaged jar from any working directory (run by failsafe, after package). */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LauncherIT {
    static final Path ROOT = Path.of(System.getProperty("vigil.root", ".")).toAbsolutePath();
    static final Path LAUNCHER = ROOT.resolve("bin").resolve("vigil-replay");

    @TempDir
    Path tmp;

    private CliRun launch(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(LAUNCHER.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(tmp.toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "launcher finished");
        return new CliRun(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    @Test
    void helpWorksFromAnyWorkingDirectory() throws Exception {
        CliRun run = launch("--help");
        assertEquals(0, run.exit(), run::toString);
        assertTrue(run.out().contains("Usage: vigil-replay"), run::toString);
        for (String sub : new String[] {"closes", "show", "audit", "stats", "export", "timeline", "tail"}) {
            assertTrue(run.out().contains(sub), sub + " listed");
            CliRun subHelp = launch(sub, "--help");
            assertEquals(0, subHelp.exit(), subHelp::toString);
        }
    }

    @Test
    void theJarAuditsTheFixtureAndReportsBadInputInOneLine() throws Exception {
        Path journal = tmp.resolve("journal");
        JournalFiles.copyCompact(GoldenFixtureTest.FIXTURE.resolve("journal"), journal);
        CliRun audit = launch("audit", journal.toString());
        assertEquals(AuditCommand.EXIT_VIOLATIONS, audit.exit(), audit::toString);
        assertEquals("", audit.err(), "nothing but the result: no Chronicle log lines");
        CliRun missing = launch("closes", tmp.resolve("nope").toString());
        assertTrue(missing.isOneErrLine(), missing::toString);
    }
}
