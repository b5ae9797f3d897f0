package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Python package's own pytest suite (python/tests), run as part of {@code mvn -B verify}: a failing
 * pytest fails this test with pytest's output. The interpreter is {@code -Dvigil.python} (the parent pom:
 * Debian's /usr/bin/python3, which has apt's python3-pytest).
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class PythonSuiteTest {
    static final String PYTHON = System.getProperty("vigil.python", "/usr/bin/python3");

    @TempDir
    Path tmp;

    @Test
    void thePythonPackagesPytestSuitePasses() throws Exception {
        Path log = tmp.resolve("pytest.log");
        ProcessBuilder pb = new ProcessBuilder(List.of(PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
                "--basetemp=" + tmp.resolve("base"), "python/tests"))
                .directory(Launchers.ROOT.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put("PYTHONPATH", Launchers.ROOT.resolve("python") + ":" + Launchers.ROOT.resolve("python/tests"));
        pb.environment().put("VIGIL_PYTHON", PYTHON);
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        if (!p.waitFor(840, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("pytest did not finish within 840 s:\n" + Files.readString(log));
        }
        String out = Files.readString(log);
        assertEquals(0, p.exitValue(), () -> "pytest python/tests failed:\n" + out);
        assertTrue(out.contains(" passed"), out);
        assertFalse(out.contains("skipped"), () -> "nothing may be skipped silently:\n" + out);
    }
}
