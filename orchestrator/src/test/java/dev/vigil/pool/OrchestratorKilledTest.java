package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** SIGKILL the orchestrator JVM with a live pool: every child must be gone within 2 s (PDEATHSIG, parent-death checks). */
@Timeout(120)
class OrchestratorKilledTest {
    @TempDir
    Path tmp;

    @Test
    void everyChildIsGoneWithinTwoSecondsOfTheOrchestratorsDeath() throws Exception {
        String cp = Path.of(Orchestrator.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Path.of(PoolHolderMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + System.getProperty("vigil.jvmOptionsFile"), "-cp", cp, "-Dvigil.native.dir="
                        + System.getProperty("vigil.native.dir"), PoolHolderMain.class.getName(),
                tmp.resolve("journal").toString()));
        Process holder = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            CompletableFuture<String> pidsLine = CompletableFuture.supplyAsync(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
                    StringBuilder seen = new StringBuilder();
                    for (String line; (line = r.readLine()) != null; ) {
                        if (line.startsWith("PIDS ")) {
                            return line;
                        }
                        seen.append(line).append('\n');
                    }
                    throw new IllegalStateException("holder ended without PIDS; output:\n" + seen);
                } catch (java.io.IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            String line = pidsLine.get(90, TimeUnit.SECONDS);
            assertNotNull(line);
            List<Integer> pids = new ArrayList<>();
            for (String p : line.substring(5).trim().split(" ")) {
                pids.add(Integer.parseInt(p));
            }
            assertEquals(4, pids.size(), line);
            for (int pid : pids) {
                assertTrue(ProcessTree.running(pid), "child pid=" + pid + " should run before the kill");
            }
            holder.destroyForcibly();
            assertTrue(holder.waitFor(10, TimeUnit.SECONDS));
            long killedAt = System.nanoTime();
            List<Integer> alive = new ArrayList<>(pids);
            while (!alive.isEmpty() && System.nanoTime() - killedAt < TimeUnit.SECONDS.toNanos(2)) {
                alive.removeIf(pid -> !ProcessTree.running(pid));
                Thread.sleep(10);
            }
            assertTrue(alive.isEmpty(), "children alive 2 s after the orchestrator's SIGKILL: " + alive);
        } finally {
            holder.destroyForcibly();
            holder.waitFor(10, TimeUnit.SECONDS);
            // the holder's guardian writes its record beside the journal, then exits: before the temp dir goes
            ProcessTree.awaitNoneNaming(tmp.resolve("journal").toAbsolutePath().toString(), 15_000);
        }
    }
}
