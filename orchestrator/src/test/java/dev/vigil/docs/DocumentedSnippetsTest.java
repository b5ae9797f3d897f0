package dev.vigil.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import dev.vigil.cli.SpecReader;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.mailbox.CommandResult;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.spawn.Redirect;

/**
 * Every code block of README.md, docs/*.md and python/README.md in a language (java, c, python, json, yaml)
 * is compiled and run, or validated by SpecReader. A block that is deliberately partial says so in an HTML
 * comment right before it ({@code <!-- snippet: fragment: why -->}); blocks without a language are shell
 * commands or printed output. A block in any other language fails the test, so nothing is skipped silently.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DocumentedSnippetsTest {
    static final Path ROOT = Path.of(System.getProperty("vigil.root", "..")).toAbsolutePath().normalize();
    static final Duration BOUND = Duration.ofSeconds(30);
    static final Pattern FENCE = Pattern.compile("(?m)^(?:<!-- snippet: (.*?) -->\\n)?```(\\w*)\\n(.*?)^```", Pattern.DOTALL);

    @TempDir
    Path tmp;

    record Snippet(Path file, int line, String language, String marker, String code) {
        boolean fragment() {
            return marker != null && marker.startsWith("fragment");
        }

        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line + " (" + language + ")";
        }
    }

    static List<Snippet> snippets() throws Exception {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("python/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Snippet> all = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f);
            Matcher m = FENCE.matcher(text);
            while (m.find()) {
                int line = (int) text.substring(0, m.start(2) < 0 ? m.start() : m.start()).chars().filter(c -> c == '\n').count() + 1;
                all.add(new Snippet(f, line, m.group(2), m.group(1), m.group(3)));
            }
        }
        return all;
    }

    static List<Snippet> checked(String language) throws Exception {
        return snippets().stream().filter(s -> s.language().equals(language) && !s.fragment()).toList();
    }

    @Test
    void everyBlockIsInALanguageThisTestChecksOrIsMarkedAFragmentOrIsCommandsAndOutput() throws Exception {
        List<Snippet> all = snippets();
        assertTrue(all.size() >= 20, "found only " + all.size() + " blocks: the fence pattern broke");
        for (Snippet s : all) {
            if (!List.of("", "java", "c", "python", "json", "yaml").contains(s.language())) {
                fail(s + ": language '" + s.language() + "' is not checked by this test (add it here or mark the block a fragment)");
            }
        }
        assertTrue(all.stream().anyMatch(Snippet::fragment), "the fragment marker is recognised");
    }

    @Test
    void everySpecBlockIsValidatedBySpecReader() throws Exception {
        List<Snippet> specs = new ArrayList<>(checked("json"));
        specs.addAll(checked("yaml"));
        assertTrue(!specs.isEmpty(), "README's spec example is found");
        for (Snippet s : specs) {
            ObjectMapper mapper = s.language().equals("yaml") ? new ObjectMapper(new YAMLFactory()) : new ObjectMapper();
            SpecReader.validate(s.toString(), mapper.readTree(s.code())); // throws listing every mistake
        }
    }

    @Test
    void everyPythonBlockParses() throws Exception {
        for (Snippet s : snippets().stream().filter(s -> s.language().equals("python")).toList()) {
            Path file = tmp.resolve("snippet.py");
            Files.writeString(file, s.code());
            Process p = new ProcessBuilder(python(), "-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())", file.toString())
                    .redirectErrorStream(true).start();
            assertTrue(p.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS), s + ": python did not finish");
            assertEquals(0, p.exitValue(), () -> s + " does not parse: " + read(p));
        }
    }

    /** The Java example is compiled into build/classes of a fresh directory and run there as its own JVM. */
    @Test
    void theJavaExampleCompilesAndRunsItsPoolWithTheUsersHandlerClass() throws Exception {
        List<Snippet> java = checked("java");
        assertEquals(1, java.size(), () -> "runnable Java blocks: " + java);
        Snippet s = java.get(0);
        Matcher name = Pattern.compile("public class (\\w+)").matcher(s.code());
        assertTrue(name.find(), s + ": no public class");
        Path source = tmp.resolve("src").resolve(name.group(1) + ".java");
        Path classes = tmp.resolve("build/classes");
        Files.createDirectories(source.getParent());
        Files.createDirectories(classes);
        Files.writeString(source, s.code());
        // the orchestrator's classes and its dependencies, as a user's build would have them (absolute: the run is elsewhere)
        String classPath = ROOT.resolve("orchestrator/target/classes") + ":"
                + Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = ToolProvider.getSystemJavaCompiler().run(null, errors, errors, "-d", classes.toString(), "-cp", classPath,
                source.toString());
        assertEquals(0, status, () -> s + " does not compile:\n" + errors.toString(StandardCharsets.UTF_8));

        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.add("@" + System.getProperty("vigil.jvmOptionsFile"));
        cmd.add("-Dvigil.native.dir=" + System.getProperty("vigil.native.dir"));
        cmd.add("-Dvigil.python=" + python());
        cmd.addAll(List.of("-cp", classes + ":" + classPath, name.group(1)));
        Process run = new ProcessBuilder(cmd).directory(tmp.toFile()).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("run.log").toFile()).start();
        if (!run.waitFor(240, TimeUnit.SECONDS)) {
            run.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail(s + " did not finish within 240 s:\n" + Files.readString(tmp.resolve("run.log")));
        }
        String out = Files.readString(tmp.resolve("run.log"));
        assertEquals(0, run.exitValue(), () -> s + " failed:\n" + out);
        assertTrue(out.contains("calibrated: 43"), out);
    }

    /** The C child compiled as a user would (gcc, libvigil-child.a) and the Python handler, both served in one pool. */
    @Test
    void theCChildAndThePythonHandlerServeControlsInAPool() throws Exception {
        List<Snippet> c = checked("c");
        assertEquals(1, c.size(), () -> "runnable C blocks: " + c);
        Path nativeDir = Path.of(System.getProperty("vigil.native.dir", ROOT.resolve("native/build").toString()));
        Path source = tmp.resolve("child.c");
        Path binary = tmp.resolve("child");
        Files.writeString(source, c.get(0).code());
        Process cc = new ProcessBuilder("cc", "-std=c11", "-Wall", "-Werror", "-Wno-unused-parameter", "-I",
                ROOT.resolve("native/include").toString(), "-o", binary.toString(), source.toString(),
                nativeDir.resolve("libvigil-child.a").toString()).redirectErrorStream(true).start();
        assertTrue(cc.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS), "cc did not finish");
        assertEquals(0, cc.exitValue(), () -> c.get(0) + " does not compile: " + read(cc));

        Snippet handler = snippets().stream().filter(s -> s.language().equals("python") && !s.fragment()
                && s.code().contains("class Calibrator")).findFirst().orElseThrow();
        Path modules = Files.createDirectories(tmp.resolve("py"));
        Files.writeString(modules.resolve("calibration.py"), handler.code());

        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "snippets").childOutput(Redirect.INHERIT).startTimeout(BOUND)
                    .group("c", 1, ChildSpec.c(binary))
                    .group("py", 1, ChildSpec.python("calibration:Calibrator").withClassPath(modules))
                    .start();
            assertEquals(17, pool.control("c", 0, 1, 17, BOUND).value());
            assertEquals(5, pool.control("py", 0, 1, 5, BOUND).value());
            assertEquals(8, pool.control("py", 0, 1, 3, BOUND).value(), "the handler keeps its state");
            CommandResult failed = pool.control("py", 0, 2, 9, BOUND);
            assertEquals(7, failed.errorCode());
            assertEquals("no such chip: 9", failed.errorText());
            CloseReport report = pool.closeWithReport();
            assertTrue(report.isClean(), report.describeFailures());
        }
    }

    static String python() {
        return System.getProperty("vigil.python", "python3");
    }

    private static String read(Process p) {
        try {
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
