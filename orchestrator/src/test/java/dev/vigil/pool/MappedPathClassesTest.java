package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No class with a static initializer (named, hidden, proxy) is first initialized after the orchestrator opened on a
 * thread that touches mapped mailbox memory, the close engine's, the ring drainer's or a caller's
 * ({@link MappedPathClasses}), but the harmless LambdaForm classes: a late memory fault of a cut mailbox map landing
 * in it would fail that class for the JVM's life. Runs {@link MappedPathClassesMain} (starts, commands, closes, a map cut in the
 * middle of a close, a pool after it) in a JVM of its own under {@code -Xlog:class+init} and reads which thread
 * initialized what after the mark class {@code Opened}.
 */
class MappedPathClassesTest {
    /**
     * The threads' names as Linux keeps them (15 characters): the close engine, the ring drainer, and the callers
     * (MappedPathClassesMain's main thread, "java": starts and their INIT_READY poll, commands; the thread that
     * closes the pool whose map is cut).
     */
    private static final List<String> MAPPED_PATH_THREADS = List.of("vigil-close-eng", "vigil-ring-drai", "java",
            "cut-closer");
    /**
     * Hidden classes that a fault can fail harmlessly: the JDK's LambdaForm classes. A hidden class is found only
     * through what made it; JDK 17 defines and initializes a LambdaForm's class before it sets the form's entry point
     * (LambdaForm.compileToBytecode), so a fault raised inside fails that one call and the next use compiles the form
     * again (a lambda's own class has no static initializer: the log says "(no method)"; an invokedynamic call site
     * whose bootstrap raised an InternalError is linked again, only a LinkageError is kept). Everything else counts:
     * named classes, dynamic proxies (the proxy cache keeps the class), the journal's generated writers.
     */
    private static final Pattern HARMLESS = Pattern.compile("^java/lang/invoke/LambdaForm\\$[A-Z]+\\+0x");
    private static final Pattern INIT = Pattern.compile("^\\[(\\d+)\\] \\d+ Initializing '([^']+)'(\\(no method\\))?");

    @TempDir
    Path tmp;

    @Test
    void noThreadTouchingMappedMailboxMemoryInitializesAClassAfterTheOrchestratorOpened() throws Exception {
        Path log = tmp.resolve("init.log");
        String cp = Path.of(Orchestrator.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Path.of(MappedPathClassesMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim();
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + System.getProperty("vigil.jvmOptionsFile"), "-cp", cp,
                "-Xlog:class+init=info:file=" + log + ":tid",
                "-Dvigil.native.dir=" + System.getProperty("vigil.native.dir"), MappedPathClassesMain.class.getName(),
                tmp.resolve("journal").toString()).redirectErrorStream(true).redirectOutput(tmp.resolve("out.txt").toFile())
                .start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(tmp.resolve("out.txt"));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("RAN "), "no pool ran to completion after the cut: " + out);
        Map<String, String> threadOfTid = out.lines().filter(l -> l.startsWith("TID ")).map(l -> l.split(" ", 3))
                .collect(Collectors.toMap(f -> f[1], f -> f[2]));
        assertTrue(threadOfTid.values().containsAll(MAPPED_PATH_THREADS), threadOfTid.toString());

        String opened = MappedPathClassesMain.Opened.class.getName().replace('.', '/');
        String done = MappedPathClassesMain.Done.class.getName().replace('.', '/');
        TreeSet<String> firstThere = new TreeSet<>();
        List<String> harmless = new ArrayList<>();
        boolean after = false;
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            Matcher m = INIT.matcher(line);
            if (!m.find()) {
                continue;
            }
            String name = m.group(2);
            String thread = threadOfTid.getOrDefault(m.group(1), "");
            if (name.equals(opened)) {
                after = true;
            } else if (name.equals(done)) {
                break;
            } else if (after && m.group(3) == null && MAPPED_PATH_THREADS.contains(thread)) {
                (HARMLESS.matcher(name).find() ? harmless : firstThere).add(thread + " " + name.replace('/', '.'));
            }
        }
        assertTrue(firstThere.isEmpty(), "first initialized on a thread that touches mapped mailbox memory, after the"
                + " orchestrator opened; have MappedPathClasses initialize them: " + firstThere.size() + " " + firstThere
                + " (LambdaForm classes, harmless: " + harmless.size() + ")");
    }
}
