package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The store survives its owner being SIGKILLed: a new owner reopens the map file and finds every mailbox and word. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MailboxStoreCrashTest {
    @TempDir
    Path dir;

    @Test
    void aStoreWhoseOwnerWasKilledReopensWithEveryWordIntact() throws Exception {
        Path file = dir.resolve("mailboxes.map");
        int count = 20;
        String classpath = String.join(java.io.File.pathSeparator, Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim(),
                Path.of("target/classes").toAbsolutePath().toString(), Path.of("target/test-classes").toAbsolutePath().toString());
        // a helper JVM, not a pool child: ProcessBuilder is fine here
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + System.getProperty("vigil.jvmOptionsFile"), "-cp", classpath, StoreCrashWriterMain.class.getName(), file.toString(),
                Integer.toString(count))
                .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(writer.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = out.readLine()) != null && !line.equals("READY")) {
                seen.append(line).append('\n');
            }
            assertEquals("READY", line, seen::toString);
            writer.destroyForcibly(); // SIGKILL: no close, no shutdown hooks
            assertTrue(writer.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, writer.exitValue());
        }
        assertTrue(Files.exists(file.resolveSibling("mailboxes.map.owner")), "the dead owner left its marker");

        try (MailboxStore store = MailboxStore.createOrOpen(file, 64)) {
            assertFalse(store.recoveryNotes().isEmpty(), "reopen knows it recovered");
            assertEquals(count, store.ids().size());
            for (int i = 0; i < count; i++) {
                MailboxHandle handle = store.lookup(new MailboxId("crash", "g", i)).orElseThrow();
                assertEquals(1000 + i, handle.mailbox().gateAcquire());
                assertEquals(1, handle.heartbeat());
                if (i % 2 == 0) {
                    assertEquals(ProtocolMode.STICKY, handle.mode());
                    assertEquals(500 + i, handle.shutdownWord());
                } else {
                    assertEquals(ProtocolMode.LEGACY, handle.mode());
                    assertEquals(MailboxState.SHUTDOWN, handle.state());
                }
            }
            MailboxHandle more = store.allocate(new MailboxId("crash", "g", count), ProtocolMode.STICKY);
            assertEquals(0, more.stateWord());
        }
        assertFalse(Files.exists(file.resolveSibling("mailboxes.map.owner")), "a clean close removes the marker");
    }
}
