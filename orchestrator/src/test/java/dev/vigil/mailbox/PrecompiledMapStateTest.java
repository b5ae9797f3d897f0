package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.mailbox.internal.MapStateClassWriter;
import net.openhft.chronicle.values.Values;

/**
 * Opening the mailbox map runs no compiler: Chronicle Map's generated state class is in the
 * orchestrator's own classes (written at build time by {@link MapStateClassWriter}), and Chronicle
 * Values takes it instead of compiling one.
 */
class PrecompiledMapStateTest {
    @TempDir
    Path tmp;

    @Test
    void chronicleValuesTakesTheBuildTimeClassFromTheOrchestratorsClasses() throws Exception {
        Class<?> state = Class.forName(MapStateClassWriter.STATE_INTERFACE);
        Class<?> nativeClass = Values.nativeClassFor(state);
        assertSame(Class.forName(MapStateClassWriter.stateClassName()), nativeClass);
        assertEquals(MapStateClassWriter.class.getProtectionDomain().getCodeSource().getLocation(),
                nativeClass.getProtectionDomain().getCodeSource().getLocation(),
                "the state class comes from the orchestrator's classes, not from a run-time compile");
    }

    @Test
    void aFreshJvmOpeningAMailboxStoreLoadsNoJavac() throws Exception {
        String cp = System.getProperty("java.class.path");
        Path log = tmp.resolve("classes.txt");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + System.getProperty("vigil.jvmOptionsFile"), "-Xlog:class+load=info:file=" + log, "-cp", cp,
                OpenStoreMain.class.getName(), tmp.resolve("mailboxes.map").toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(tmp.resolve("out.txt").toFile()).start();
        boolean ended = p.waitFor(120, TimeUnit.SECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        assertEquals(0, ended ? p.exitValue() : -1, Files.readString(tmp.resolve("out.txt")));
        String loaded = Files.readString(log);
        assertFalse(loaded.contains("com.sun.tools.javac.main.JavaCompiler "), "javac ran while the store opened");
        String stateLine = loaded.lines().filter(l -> l.contains(MapStateClassWriter.stateClassName() + " "))
                .findFirst().orElse("(never loaded)");
        assertTrue(stateLine.contains("source: file:"), "the state class is loaded from the class path: " + stateLine);
    }

    /** Opens and closes one mailbox store in a JVM of its own. */
    public static final class OpenStoreMain {
        public static void main(String[] args) throws Exception {
            try (MailboxStore store = MailboxStore.createOrOpen(Path.of(args[0]), 4)) {
                System.out.println("opened " + store);
            }
        }
    }
}
