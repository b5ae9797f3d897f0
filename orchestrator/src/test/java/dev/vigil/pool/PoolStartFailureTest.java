package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;

/**
 * A mailbox child that exits before INIT_READY without writing an error into its mailbox (a wrong program, a device
 * missing): the pool's start failure says so and names the child's stderr file. Before it read "exit=0 error=" and
 * nothing more (the field's `"kind": "mailbox-exec", "command": ["/bin/true"]`).
 */
@Timeout(60)
class PoolStartFailureTest {
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

    @Test
    void aChildThatExitsBeforeReadyWithoutAnErrorNamesItsStderrFile() throws Exception {
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "p")
                .childLogs(1 << 20, 1).startTimeout(Duration.ofSeconds(20))
                .group("dev", 1, ChildSpec.mailboxExec("/bin/sh", "-c", "echo no device /dev/chip0 >&2; exit 3")).start());
        Path stderr = orchestrator.childLogDir().resolve("p").resolve("dev-0.err");
        assertTrue(e.getMessage().contains("exited before INIT_READY: exit=3 (no error in its mailbox; its stderr: " + stderr
                + ")"), e.getMessage());
        assertTrue(!e.getMessage().contains("error= "), e.getMessage());
        long giveUp = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!(Files.exists(stderr) && Files.readString(stderr).contains("no device /dev/chip0")) && System.nanoTime() < giveUp) {
            Thread.sleep(20);
        }
        assertTrue(Files.readString(stderr).contains("no device /dev/chip0"), "the file named holds the child's stderr");
    }

    /**
     * Arguments and environment too long for exec all together (60 variables of 120,000 bytes, each under the 128 KiB
     * one string may be, past ARG_MAX): the start fails in one line saying so with the sizes (E2BIG). Before, the line
     * printed the whole command line, named three redirects as Java records ({@code Redirect[kind=DISCARD, file=null]})
     * and blamed "a redirect file that cannot be opened".
     */
    @Test
    void argumentsAndEnvironmentTooLongForExecFailTheStartInOneLineWithTheSizes() {
        java.util.Map<String, String> env = new java.util.HashMap<>();
        for (int i = 0; i < 60; i++) { // 7.2 MB: past ARG_MAX even under an unlimited stack (6 MB then)
            env.put("E" + i, "v".repeat(120_000));
        }
        ChildSpec spec = ChildSpec.exec("/bin/true", "y".repeat(100_000));
        for (var e : env.entrySet()) {
            spec = spec.withEnv(e.getKey(), e.getValue());
        }
        ChildSpec big = spec;
        PoolStartException e = assertThrows(PoolStartException.class, () -> Pool.builder(orchestrator, "e2big")
                .group("g", 1, big).start());
        String first = e.getMessage().lines().findFirst().orElseThrow();
        assertTrue(first.contains("too long for exec (E2BIG): argv ") && first.contains(" environment ")
                && first.contains(" exec takes, or one string longer than 131072"), first);
        assertTrue(first.length() < 1_000 && !first.contains("Redirect[") && !first.contains("redirect file"), first);
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class,
                () -> ChildSpec.exec("/bin/true").withEnv("BIG", "x".repeat(200_000)));
        assertTrue(one.getMessage().startsWith("child env variable BIG is 200005 bytes with its NUL, more than the 131072"),
                one.getMessage());
    }
}
