package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** PDEATHSIG, armed by the shim: a SIGKILLed orchestrator JVM takes its children with it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ParentDeathTest {
    @Test
    void childrenDieWithinTwoSecondsOfTheirJvmBeingKilled() throws Exception {
        Process helper = new ProcessBuilder(helperCommand())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        int grandchild;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(helper.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("pid="), "helper said: " + line);
            grandchild = Integer.parseInt(line.substring(4));
            ProcFs.Stat stat = ProcFs.stat(grandchild).orElseThrow();
            assertEquals("sleep", stat.comm());
            assertEquals(helper.pid(), stat.ppid());

            helper.destroyForcibly(); // SIGKILL: no shutdown hook, no close, nothing but the kernel
            assertTrue(helper.waitFor(10, TimeUnit.SECONDS));
        } finally {
            helper.destroyForcibly();
        }
        long killed = System.nanoTime();
        while (!ProcFs.goneOrDeadElsewhere(grandchild) && System.nanoTime() - killed < TimeUnit.SECONDS.toNanos(2)) {
            Thread.sleep(10);
        }
        assertTrue(ProcFs.goneOrDeadElsewhere(grandchild), "grandchild pid=" + grandchild + " still " + ProcFs.stat(grandchild));
        SpawnFixture.assertNoChildrenLeft();
    }

    private static List<String> helperCommand() throws Exception {
        Path target = Path.of(System.getProperty("vigil.testClasspathFile")).getParent();
        String classPath = target.resolve("test-classes") + ":" + target.resolve("classes") + ":"
                + Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim();
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Dvigil.native.dir=" + SpawnFixture.nativeDir());
        command.add("-cp");
        command.add(classPath);
        command.add(OrphanedChildMain.class.getName());
        return command;
    }
}
