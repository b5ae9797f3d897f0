package dev.vigil.child;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.ProtocolMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real orphan: the child's parent (a shell that started it in the background) exits; the child, reparented,
 * notices that getppid() is no longer VIGIL_PARENT_PID and ends on its own instead of spinning forever.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OrphanedChildTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(ChildKind.class)
    void aChildWhoseParentDiedEndsOnItsOwn(ChildKind kind) throws Exception {
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 4)) {
            MailboxHandle handle = store.allocate(new MailboxId("orphan", kind.name(), 0), ProtocolMode.STICKY);
            Map<String, String> env = new HashMap<>(kind.env(handle, DemoBehaviour.DEFAULT));
            env.remove("VIGIL_PARENT_PID"); // the shell names itself
            List<String> quoted = new ArrayList<>();
            for (String arg : kind.argv(ChildKind.TEST_JVM_FLAGS)) {
                quoted.add("'" + arg + "'");
            }
            String script = "VIGIL_PARENT_PID=$$ exec " + String.join(" ", quoted) + " &\n"
                    + "while [ ! -s " + dir.resolve("go") + " ]; do sleep 0.02; done\n";
            try (SpawnedChild shell = SpawnedChild.spawn(List.of("/bin/sh", "-c", script), env, dir.resolve("orphan.log"))) {
                assertEquals(InitOutcome.READY, handle.awaitInit(Duration.ofSeconds(20)), () -> read(dir.resolve("orphan.log")));
                int childPid = handle.childPid();
                assertTrue(alive(childPid));
                Files.writeString(dir.resolve("go"), "1");
                assertEquals(0, shell.awaitExit(Duration.ofSeconds(20)), "the parent is gone");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (alive(childPid) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertFalse(alive(childPid), "the orphan ended: pid=" + childPid + " log=" + read(dir.resolve("orphan.log")));
                assertTrue(read(dir.resolve("orphan.log")).contains("parent gone"), read(dir.resolve("orphan.log")));
                assertEquals(0, handle.ackNanos(), "it ended because of its parent, not a shutdown");
            }
        }
    }

    /** Running and not a zombie (a reparented child may stay a zombie if nobody reaps it). */
    private static boolean alive(int pid) throws IOException {
        Path stat = Path.of("/proc/" + pid + "/stat");
        if (!Files.exists(stat)) {
            return false;
        }
        try {
            String text = Files.readString(stat);
            char state = text.charAt(text.lastIndexOf(')') + 2);
            return state != 'Z' && state != 'X';
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }
}
