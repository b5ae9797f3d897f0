package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.CloseSettings;
import dev.vigil.spawn.Redirect;

/** Children running the user's own code: a Java handler compiled outside the orchestrator, a Python handler module. */
@Timeout(90)
class UserCodeChildrenTest {
    static final Duration BOUND = Duration.ofSeconds(20);

    @TempDir
    Path tmp;
    private Orchestrator orchestrator;

    @BeforeEach
    void open() {
        orchestrator = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults()).open();
    }

    @AfterEach
    void close() {
        orchestrator.close();
    }

    /** Compiles {@code source} (class {@code name}, default package) against the orchestrator's classes into a fresh directory. */
    static Path compileHandler(Path tmp, String name, String source) throws Exception {
        Path src = tmp.resolve("user-src").resolve(name + ".java");
        Path classes = tmp.resolve("user-classes");
        Files.createDirectories(src.getParent());
        Files.createDirectories(classes);
        Files.writeString(src, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int status = javac.run(null, errors, errors, "-d", classes.toString(), "-cp",
                ChildRuntimes.locate(Path.of(".")).javaClassPath(), src.toString());
        assertEquals(0, status, () -> errors.toString(StandardCharsets.UTF_8));
        return classes;
    }

    static final String TRIPLER = """
            import dev.vigil.child.Cancellation;
            import dev.vigil.child.ChildHandler;

            public class Tripler implements ChildHandler {
                @Override
                public long onControl(int opcode, long argument, Cancellation cancellation) {
                    return 3 * argument + opcode;
                }
            }
            """;

    @Test
    void aJavaGroupRunsAHandlerFromItsOwnClassPathWithItsJvmOptionsAndLoadsNoChronicle() throws Exception {
        Path classes = compileHandler(tmp, "Tripler", TRIPLER);
        Path classLog = tmp.resolve("classes.log");
        Pool pool = Pool.builder(orchestrator, "user-java").childOutput(Redirect.INHERIT).startTimeout(BOUND)
                .group("hosts", 1, ChildSpec.java("Tripler").withClassPath(classes)
                        .withJvmOptions("-Xlog:class+load=info:file=" + classLog, "-Dvigil.example=1"))
                .start();
        assertEquals(3 * 14 + 7, pool.control("hosts", 0, 7, 14, BOUND).value());
        CloseReport report = pool.closeWithReport();
        assertTrue(report.isClean(), report.describeFailures());

        String loaded = Files.readString(classLog);
        assertTrue(loaded.contains("Tripler source: file:" + classes), "the handler came from the user's class path");
        for (String forbidden : List.of("net.openhft", "jnr.", "com.lmax", "com.fasterxml", "dev.vigil.journal")) {
            assertFalse(loaded.contains(forbidden), "the child loaded " + forbidden);
        }
    }

    @Test
    void withoutItsClassPathTheSameJavaGroupFailsToStartNamingTheHandler() throws Exception {
        compileHandler(tmp, "Tripler", TRIPLER);
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "no-cp")
                .childOutput(Redirect.DISCARD).startTimeout(BOUND).group("hosts", 1, ChildSpec.java("Tripler")).start());
        assertTrue(e.getMessage().contains("INIT_FAILED") && e.getMessage().contains("Tripler"), e.getMessage());
    }

    @Test
    void aPythonGroupRunsAHandlerModuleFromItsClassPath() throws Exception {
        Path modules = Files.createDirectories(tmp.resolve("py"));
        Files.writeString(modules.resolve("user_handlers.py"), """
                import vigil_child

                class Doubler(vigil_child.Handler):
                    def on_control(self, opcode, argument, cancellation):
                        return 2 * argument + opcode
                """);
        Pool pool = Pool.builder(orchestrator, "user-python").childOutput(Redirect.INHERIT).startTimeout(BOUND)
                .group("py", 2, ChildSpec.python("user_handlers:Doubler").withClassPath(modules))
                .start();
        assertEquals(2 * 20 + 1, pool.control("py", 1, 1, 20, BOUND).value());
        assertEquals("PYTHON", pool.child("py", 0).kind());
        CloseReport report = pool.closeWithReport();
        assertTrue(report.isClean(), report.describeFailures());
    }

    @Test
    void classPathAndRuntimeOptionsAreRefusedForKindsThatRunNoUserCode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ChildSpec.cDemo().withClassPath(tmp));
        assertTrue(e.getMessage().contains("kind=C"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ChildSpec.python("m:C").withJvmOptions("-Xmx1g"));
    }
}
