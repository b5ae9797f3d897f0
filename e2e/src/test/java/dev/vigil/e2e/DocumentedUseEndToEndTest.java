package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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

    /**
     * README's table of session requests, sent as written to a session of README's spec (whose pool rack-a has the
     * chips the examples name): each answer has the documented fields; the control's is the documented line itself.
     * {@code inside} is left out: it waits for a handler that does not beat, which the demo's echo never is.
     */
    @Test
    void theReadmeSessionRequestsAreAnsweredAsDocumented() throws Exception {
        Path readme = Launchers.ROOT.resolve("README.md");
        Path spec = Files.writeString(work.resolve("pools.json"), block(readme, "## The pool spec (`bin/vigil run SPEC`)", "json", false));
        Matcher row = Pattern.compile("(?m)^\\| `(\\{\"op\":\"(\\w+)\"[^`]*)`[^|]*\\| `([^`]*)`").matcher(Files.readString(readme));
        List<String[]> rows = new ArrayList<>();
        while (row.find()) {
            if (!row.group(2).equals("inside")) {
                rows.add(new String[] {row.group(2), row.group(1), row.group(3)});
            }
        }
        assertEquals(List.of("control", "send", "gate", "close"), rows.stream().map(r -> r[0]).toList(), "README's session table");
        Process session = Launchers.start(work, "vigil", "session", spec.toString());
        try (var in = session.getOutputStream()) {
            for (String[] r : rows) {
                in.write((r[1] + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        if (!session.waitFor(150, TimeUnit.SECONDS)) {
            session.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("the session did not end:\n" + Launchers.collect(work, "vigil", -1));
        }
        Launchers.Result result = Launchers.collect(work, "vigil", session.exitValue());
        assertEquals(0, result.exitCode(), result.toString());
        List<String> answers = List.of(result.out().split("\n"));
        assertEquals(rows.size() + 1, answers.size(), "the ready line, then one answer per request:\n" + result);
        ObjectMapper json = new ObjectMapper();
        assertEquals("ready", json.readTree(answers.get(0)).path("event").asText(), answers.get(0));
        for (int i = 0; i < rows.size(); i++) {
            String documented = rows.get(i)[2];
            JsonNode answer = json.readTree(answers.get(i + 1));
            if (rows.get(i)[0].equals("control") || rows.get(i)[0].equals("gate")) {
                assertEquals(json.readTree(documented), answer, rows.get(i)[1]);
            } else if (rows.get(i)[0].equals("send")) {
                assertEquals(names(json.readTree(documented)), names(answer), rows.get(i)[1]);
            } else {
                // the close answer is written as a shape: {"ok":true,"clean":true,"reports":[{"pool","outcome",...}]}
                assertEquals(Set.of("ok", "clean", "reports"), names(answer), answers.get(i + 1));
                Set<String> reportFields = new TreeSet<>(List.of(documented.substring(documented.indexOf("[{") + 2,
                        documented.indexOf("}]")).replace("\"", "").split(",")));
                assertEquals(reportFields, names(answer.path("reports").get(0)), answers.get(i + 1));
            }
        }
    }

    private static Set<String> names(JsonNode node) {
        Set<String> names = new TreeSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
