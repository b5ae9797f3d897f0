package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What `bin/vigil run` loads on its way to the first child (docs/BENCHMARKS.md, "Start and exit"), from the JVM's own
 * class-loading log: picocli and ASM come from the class-data archive (their class files are upgraded at
 * build time, bin/lib/UpgradeClassFiles.java; a Java 5 class file cannot be archived and is parsed from its jar at
 * every start); jnr-posix, whose binding generated its whole libc interface on the main thread, is not loaded, nor
 * are OpenHFT Affinity and JNA, which Chronicle core's start-up loads outside its test mode (dev.vigil.pool.internal.junitmode).
 */
@Timeout(120)
class StartPathTest {
    @TempDir
    Path work;

    @Test
    void aRunTakesItsCommandLineAndCodeGenerationClassesFromTheArchiveAndNeverLoadsJnrPosixOrAffinity() throws Exception {
        Path spec = work.resolve("one.json");
        Files.writeString(spec, "{\"pools\": [{\"id\": \"p\", \"groups\": [{\"name\": \"g\", \"kind\": \"exec\","
                + " \"command\": [\"sleep\", \"30\"], \"children\": 1}]}]}");
        Path log = work.resolve("class-load.txt");
        Launchers.Result run = Launchers.run(work, 100, Map.of("JAVA_TOOL_OPTIONS", "-Xlog:class+load:file=" + log),
                "vigil", "run", spec.toString(), "--journal", work.resolve("journal").toString());
        assertEquals(0, run.exitCode(), run.toString());
        List<String> loads = Files.readAllLines(log);
        for (String name : List.of("picocli.CommandLine", "picocli.CommandLine$Model$CommandSpec",
                "org.objectweb.asm.ClassWriter")) {
            String source = sourceOf(loads, name).orElseThrow(() -> new AssertionError(name + " was not loaded at all"));
            assertTrue(source.startsWith("shared objects file"), name + " came from " + source + ", not the class-data archive");
        }
        assertEquals(Optional.empty(), sourceOf(loads, "jnr.posix.POSIXFactory"), "jnr-posix was loaded");
        assertEquals(Optional.empty(), sourceOf(loads, "net.openhft.affinity.Affinity"), "Affinity was loaded");
        assertEquals(Optional.empty(), sourceOf(loads, "com.sun.jna.Native"), "JNA was loaded");
    }

    /** Where the log says the class was loaded from ("shared objects file (top)", "jar:file:..."), if it was. */
    private static Optional<String> sourceOf(List<String> loads, String name) {
        String marker = "] " + name + " source: ";
        return loads.stream().filter(l -> l.contains(marker)).findFirst()
                .map(l -> l.substring(l.indexOf(marker) + marker.length()));
    }
}
