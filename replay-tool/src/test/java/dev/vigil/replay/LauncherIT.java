package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
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
        return launchOn(null, args);
    }

    /** Runs the launcher with VIGIL_REPLAY_JAVA set to {@code java} (unset when null). */
    private CliRun launchOn(String java, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(LAUNCHER.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(tmp.toFile());
        pb.environment().remove("VIGIL_REPLAY_JAVA");
        if (java != null) {
            pb.environment().put("VIGIL_REPLAY_JAVA", java);
        }
        Process p = pb.start();
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

    /** Without VIGIL_REPLAY_JAVA the JVM is java on the PATH with its class-data archive; a bad one is one ERR line. */
    @Test
    void theJvmIsJavaOnThePathUnlessVigilReplayJavaNamesAnother() throws Exception {
        Path onPath = null;
        for (String d : System.getenv("PATH").split(":")) {
            if (onPath == null && Files.isExecutable(Path.of(d, "java"))) {
                onPath = Path.of(d, "java").toRealPath();
            }
        }
        CliRun jvm = launch("--print-jvm");
        assertEquals(0, jvm.exit(), jvm::toString);
        assertTrue(jvm.out().startsWith(onPath + " "), "java on the PATH: " + jvm);
        String version = Jdks.version(onPath);
        boolean aot = !version.isEmpty() && Integer.parseInt(version.split("\\.")[0]) >= 24;
        assertTrue(jvm.out().contains(version) && jvm.out().contains(aot ? ".aot " : ".jsa "), jvm::toString);
        for (String bad : new String[] {tmp.resolve("nope").toString(), tmp.toString()}) {
            CliRun run = launchOn(bad, "closes", GoldenFixtureTest.FIXTURE.resolve("journal").toString());
            assertTrue(run.isOneErrLine() && run.err().contains("VIGIL_REPLAY_JAVA=" + bad + " is not an executable java"),
                    run::toString);
        }
        CliRun notJava = launchOn("/bin/true", "closes", GoldenFixtureTest.FIXTURE.resolve("journal").toString());
        assertTrue(notJava.isOneErrLine() && notJava.err().contains("VIGIL_REPLAY_JAVA=/bin/true is not the java of a JDK 17"),
                notJava::toString);
    }

    /**
     * A JDK 24 or later (when this machine has one) runs the tool with its AOT cache, made by its first journal command:
     * the same answers as on java on the PATH, byte for byte, and nothing on stderr, the first time too; a damaged
     * journal, read by Chronicle's tailer, still one ERR: line (no JDK warnings about Chronicle's native calls).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aJdk24OrLaterAnswersAsTheDefaultJvmDoes() throws Exception {
        Path jdk = Jdks.newest(24, System.getenv("VIGIL_TEST_AOT_JAVA"));
        Assumptions.assumeTrue(jdk != null, "no JDK 24 or later in /usr/lib/jvm");
        String before = launchOn(jdk.toString(), "--print-jvm").out(); // "JAVA VERSION (feature N), archive FILE (state)"
        Files.deleteIfExists(Path.of(before.substring(before.indexOf(", archive ") + 10, before.lastIndexOf(" ("))));
        Path journal = tmp.resolve("journal");
        JournalFiles.copyCompact(GoldenFixtureTest.FIXTURE.resolve("journal"), journal);
        String[][] commands = {{"show", journal.toString(), "1"}, {"audit", journal.toString()}, {"stats", journal.toString()}};
        for (String[] args : commands) {
            CliRun expected = launch(args);
            for (int i = 0; i < 2; i++) { // the first run records what the AOT cache is made from (while none is in use)
                CliRun run = launchOn(jdk.toString(), args);
                assertEquals(expected.exit(), run.exit(), run::toString);
                assertEquals(expected.out(), run.out(), String.join(" ", args) + ", run " + i);
                assertEquals("", run.err(), String.join(" ", args) + ", run " + i);
            }
        }
        CliRun jvm = launchOn(jdk.toString(), "--print-jvm");
        assertTrue(jvm.out().startsWith(jdk.toRealPath() + " ") && jvm.out().contains(".aot (in use)"), jvm::toString);
        Path cycle = JournalFiles.cycleFiles(journal).get(0);
        try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(cycle.toFile(), "rw")) {
            f.seek(JournalFiles.usedLength(cycle) - 2000);
            byte[] junk = new byte[300];
            new java.util.Random(7).nextBytes(junk);
            f.write(junk);
        }
        for (String[] args : commands) {
            CliRun expected = launch(args);
            CliRun run = launchOn(jdk.toString(), args);
            assertTrue(expected.isOneErrLine(), expected::toString);
            assertEquals(expected.toString(), run.toString(), "the damage answered as on the default JVM");
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
