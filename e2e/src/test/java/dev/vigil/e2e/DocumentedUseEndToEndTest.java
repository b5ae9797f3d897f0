package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * README's examples used as a new user uses them, with nothing but the checkout's build: its spec run by bin/vigil
 * from another directory, its Java example built and run with the two documented commands, its C child built with the
 * documented cc line and named in a spec beside it by a relative path (with python/README's handler in a relative
 * classPath). DocumentedSnippetsTest compiles the same blocks in process; this runs what a user types.
 */
@Timeout(240)
class DocumentedUseEndToEndTest {
    static final Pattern BLOCK = Pattern.compile("(?m)^```(\\w*)\\n(.*?)^```", Pattern.DOTALL);

    @TempDir
    Path work;

    /** The block in {@code language} after {@code heading}, or ({@code following}) the unlabelled block after that one. */
    static String block(Path doc, String heading, String language, boolean following) throws IOException {
        String text = Files.readString(doc);
        int at = text.startsWith(heading + "\n") ? 0 : text.indexOf("\n" + heading + "\n");
        assertTrue(at >= 0, doc + ": no heading '" + heading + "'");
        Matcher m = BLOCK.matcher(text);
        boolean found = m.find(at) && m.group(1).equals(language);
        while (!found && m.find()) {
            found = m.group(1).equals(language);
        }
        assertTrue(found, doc + ": no ```" + language + " block after '" + heading + "'");
        if (!following) {
            return m.group(2);
        }
        assertTrue(m.find() && m.group(1).isEmpty(), doc + ": no command block after the " + language + " block of '" + heading + "'");
        return m.group(2);
    }

    /** Runs documented command lines as sh runs them, in {@code dir}, with {@code V} = the checkout (as the docs name it). */
    static String sh(Path dir, String commands, long seconds) throws IOException, InterruptedException {
        Path log = dir.resolve("commands.log");
        ProcessBuilder pb = new ProcessBuilder("sh", "-e", "-c", commands).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("V", Launchers.ROOT.toString());
        pb.environment().put("VIGIL_PYTHON", System.getProperty("vigil.python", "python3")); // the Python of python groups
        Process p = pb.start();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("did not finish within " + seconds + " s:\n" + commands + "\n" + Files.readString(log));
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), () -> "failed:\n" + commands + "\n--- output\n" + out);
        return out;
    }

    /** README's spec as written, run from another directory: its journal lands beside the spec, and audits clean. */
    @Test
    void theReadmeSpecRunsAsWrittenFromAnotherDirectoryAndItsJournalReadsBack() throws Exception {
        Path specs = Files.createDirectories(work.resolve("specs"));
        Path spec = Files.writeString(specs.resolve("pools.json"),
                block(Launchers.ROOT.resolve("README.md"), "## The pool spec (`bin/vigil run SPEC`)", "json", false));
        Launchers.Result run = Launchers.vigil(work, 150, "run", "specs/pools.json");
        assertEquals(0, run.exitCode(), run.toString());
        Path journal = specs.resolve("vigil-journal");
        assertTrue(Files.isDirectory(journal), "journalDir ./vigil-journal is relative to the spec's folder:\n" + run);
        assertTrue(Files.isRegularFile(specs.resolve("vigil-journal-logs/rack-a/chips-0.err")), "child logs as documented");

        Launchers.Result audit = Launchers.replay(work, 60, "audit", journal.toString());
        assertEquals(0, audit.exitCode(), audit.toString());
        Matcher show = Pattern.compile("vigil-replay show \\S+ (\\d+)").matcher(run.out());
        assertTrue(show.find(), run.out());
        Launchers.Result rebuilt = Launchers.replay(work, 60, "show", journal.toString(), show.group(1));
        assertEquals(0, rebuilt.exitCode(), rebuilt.toString());
        // the spec's word for the protocol ("protocol": "sticky"), as the docs' examples show it
        assertTrue(rebuilt.out().startsWith("close " + show.group(1) + "  pool rack-a  mode sticky  escalation term-then-kill"),
                rebuilt.out());
    }

    /** README's Java example compiled and run with the two commands printed under it, in a directory of its own. */
    @Test
    void theJavaExampleBuildsAndRunsWithTheDocumentedCommands() throws Exception {
        Path readme = Launchers.ROOT.resolve("README.md");
        Files.writeString(work.resolve("RackExample.java"), block(readme, "## The Java API", "java", false));
        String out = sh(work, block(readme, "## The Java API", "java", true), 200);
        assertTrue(out.contains("calibrated: 43"), out);
    }

    /**
     * README's C child built with the documented cc line, and python/README's handler, named by a spec beside them with
     * relative paths ({@code "command": "./mychild"}, {@code "classPath": ["py"]}), run from another directory.
     * Before, both were resolved against vigil's working directory: exit 2, {@code command './mychild' does not exist}.
     */
    @Test
    void theCChildBuiltAsDocumentedRunsFromASpecThatNamesItBesideIt() throws Exception {
        Path app = Files.createDirectories(work.resolve("app"));
        Path readme = Launchers.ROOT.resolve("README.md");
        Files.writeString(app.resolve("mychild.c"), block(readme, "## The C child API", "c", false));
        sh(app, block(readme, "## The C child API", "c", true), 60);
        Path py = Files.createDirectories(app.resolve("py"));
        Files.writeString(py.resolve("calibration.py"),
                block(Launchers.ROOT.resolve("python/README.md"), "# vigil_child: Python pool children and pytest fixtures", "python", false));
        Files.writeString(app.resolve("pools.json"), """
                {"journalDir": "journal", "close": {"windowMs": 2000},
                 "pools": [{"id": "chips", "workload": {"controls": 3},
                            "groups": [{"name": "c", "kind": "c", "command": "./mychild", "children": 2}]},
                           {"id": "calibration",
                            "groups": [{"name": "py", "kind": "python", "handler": "calibration:Calibrator",
                                        "classPath": ["py"], "children": 1}]}]}
                """);
        Launchers.Result run = Launchers.vigil(work, 150, "run", "app/pools.json");
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.out().contains("2/2 children answered every control right"), run.out());
        assertTrue(run.out().contains("reaped=2/2") && run.out().contains("reaped=1/1"), run.out());
        assertTrue(Files.isDirectory(app.resolve("journal")), run.toString());
    }
}
