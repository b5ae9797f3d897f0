package dev.vigil.child;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.ProtocolMode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChildMainTest {
    @TempDir
    Path dir;

    /** The Java child needs the JDK and orchestrator/target/classes only: run it so, and list every class it loaded. */
    @Test
    void theJavaChildRunsWithOnlyTheOrchestratorClassesAndLoadsNoChronicleOrJnr() throws Exception {
        Path classLog = dir.resolve("classes.log");
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 4)) {
            MailboxHandle handle = store.allocate(new MailboxId("cp", "g", 0), ProtocolMode.STICKY);
            List<String> argv = new ArrayList<>(ChildKind.JAVA.argv(List.of("-Xlog:class+load=info:file=" + classLog)));
            assertEquals(List.of("-cp", ChildKind.classesDir().toString()), argv.subList(argv.indexOf("-cp"), argv.indexOf("-cp") + 2));
            try (SpawnedChild child = SpawnedChild.spawn(argv, ChildKind.JAVA.env(handle, DemoBehaviour.DEFAULT), dir.resolve("child.log"))) {
                assertEquals(InitOutcome.READY, handle.awaitInit(Duration.ofSeconds(20)), () -> read(dir.resolve("child.log")));
                assertEquals(99, handle.control(DemoHandler.OP_ECHO, 99, Duration.ofSeconds(20)).value());
                handle.publishShutdown(1);
                assertEquals(0, child.awaitExit(Duration.ofSeconds(20)));
            }
        }
        String loaded = read(classLog);
        assertTrue(loaded.contains("dev.vigil.child.ChildMain"), "class log works");
        for (String forbidden : List.of("net.openhft", "jnr.", "com.lmax", "com.fasterxml", "dev.vigil.journal")) {
            assertFalse(loaded.contains(forbidden), "the child loaded " + forbidden);
        }
    }

    @Test
    void withoutAHandlerOrHandoffTheChildPrintsOneErrorLineAndExitsTwo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertEquals(ChildExitCodes.ATTACH_FAILED, ChildMain.run(new String[0], Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("ERR: no handler"), err.toString(StandardCharsets.UTF_8));
        err.reset();
        assertEquals(ChildExitCodes.ATTACH_FAILED, ChildMain.run(new String[] {DemoHandler.class.getName()},
                Map.of("VIGIL_LAYOUT_VERSION", Integer.toString(dev.vigil.mailbox.MailboxDescriptor.LAYOUT_VERSION)), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertEquals("ERR: cannot attach: missing environment variable: name=VIGIL_MAILBOX_FILE", err.toString(StandardCharsets.UTF_8).trim());
        err.reset();
        assertEquals(ChildExitCodes.ATTACH_FAILED, ChildMain.run(new String[] {DemoHandler.class.getName()},
                Map.of("VIGIL_LAYOUT_VERSION", "9"), new PrintStream(err, true, StandardCharsets.UTF_8)));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("VIGIL_LAYOUT_VERSION=9"), err.toString(StandardCharsets.UTF_8));
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}
