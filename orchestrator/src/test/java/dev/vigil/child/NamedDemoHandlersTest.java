package dev.vigil.child;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.child.demo.ExitCodeHandler;
import dev.vigil.child.demo.GateControlHandler;
import dev.vigil.child.demo.IgnoreShutdownHandler;
import dev.vigil.child.demo.SlowFinalizerHandler;
import dev.vigil.mailbox.CommandTimedOutException;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.ProtocolMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The named test handlers other parts use, run as real Java children chosen by VIGIL_CHILD_HANDLER. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NamedDemoHandlersTest {
    static final Duration BOUND = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private SpawnedChild start(MailboxHandle handle, Class<? extends DemoHandler> handler, Map<String, String> extra) {
        Map<String, String> env = new HashMap<>(handle.handoffEnv(ChildKind.PARENT_PID));
        env.put(ChildMain.HANDLER_ENV, handler.getName());
        env.putAll(extra);
        SpawnedChild child = SpawnedChild.spawn(ChildKind.JAVA.argv(ChildKind.TEST_JVM_FLAGS), env, dir.resolve(handler.getSimpleName() + ".log"));
        assertEquals(InitOutcome.READY, handle.awaitInit(BOUND));
        return child;
    }

    @Test
    void eachNamedHandlerDoesWhatItsNameSays() {
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 8)) {
            MailboxHandle gated = store.allocate(new MailboxId("named", "gate", 0), ProtocolMode.STICKY);
            MailboxHandle exiting = store.allocate(new MailboxId("named", "exit", 0), ProtocolMode.STICKY);
            MailboxHandle slow = store.allocate(new MailboxId("named", "slow", 0), ProtocolMode.STICKY);
            MailboxHandle ignoring = store.allocate(new MailboxId("named", "ignore", 0), ProtocolMode.STICKY);
            try (SpawnedChild gate = start(gated, GateControlHandler.class, Map.of());
                 SpawnedChild exit = start(exiting, ExitCodeHandler.class, Map.of("VIGIL_DEMO_EXIT_CODE", "9"));
                 SpawnedChild finalizer = start(slow, SlowFinalizerHandler.class, Map.of("VIGIL_DEMO_TEARDOWN_MILLIS", "300"));
                 SpawnedChild ignore = start(ignoring, IgnoreShutdownHandler.class, Map.of())) {
                assertThrows(CommandTimedOutException.class, () -> gated.control(DemoHandler.OP_ECHO, 1, Duration.ofMillis(200)));
                gated.setGate(1);
                long deadline = System.nanoTime() + BOUND.toNanos();
                while (gated.state() != MailboxState.CONTROL_DONE && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
                assertEquals(2, gated.control(DemoHandler.OP_ECHO, 2, BOUND).value(), "the late answer is collected first");

                for (MailboxHandle handle : new MailboxHandle[] {gated, exiting, slow, ignoring}) {
                    handle.publishShutdown(1);
                }
                assertNull(finalizer.awaitExit(Duration.ofMillis(50)), "still finalizing");
                assertEquals(0, gate.awaitExit(BOUND));
                assertEquals(9, exit.awaitExit(BOUND));
                assertEquals(0, finalizer.awaitExit(BOUND));
                assertNull(ignore.awaitExit(Duration.ofMillis(300)));
                assertEquals(0, ignoring.ackNanos());
            }
        }
    }
}
