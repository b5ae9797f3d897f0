package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What every {@link ReapMode} must do, on real processes; one subclass per mode. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class ReaperContractTest {
    private static final int SIGKILL = 9;
    private static final int SIGTERM = 15;

    @TempDir
    Path tmp;

    Spawner spawner;

    abstract ReapMode mode();

    @BeforeEach
    void startSpawner() {
        spawner = SpawnFixture.spawner(mode());
        assertEquals(mode(), spawner.reaper().mode());
    }

    @AfterEach
    void nothingIsLeftBehind() throws InterruptedException {
        spawner.close();
        SpawnFixture.assertNoChildrenLeft();
    }

    @Test
    void trueExitsZero() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("/bin/true"));
        ExitStatus status = child.onExit().get();
        assertEquals(0, status.exitCode());
        assertEquals(0, status.signal());
        assertTrue(status.reapedNanos() >= child.spawnedNanos(), "reaped after spawned");
        assertTrue(child.isReaped());
    }

    @Test
    void theExactExitCodeComesThrough() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "exit 42"));
        assertEquals(ExitStatus.exited(42, 0).describe(), child.onExit().get().describe());
        assertEquals(42, child.exitStatus().orElseThrow().exitCode());
    }

    @Test
    void aChildKilledBySigkillReportsSignalNine() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600"));
        child.signal(SIGKILL);
        ExitStatus status = child.onExit().get();
        assertEquals(SIGKILL, status.signal());
        assertEquals(-1, status.exitCode());
    }

    @Test
    void aReapedChildIsNeverSignalled() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("/bin/true"));
        child.onExit().get();
        SignalException refused = assertThrows(SignalException.class, () -> child.signal(SIGTERM));
        assertTrue(refused.getMessage().contains("pid=" + child.pid()) && refused.getMessage().contains("already reaped"),
                refused.getMessage());
        assertThrows(SignalException.class, () -> child.signalProcessGroup(SIGTERM));
    }

    @Test
    void listenersHearOfEveryExitWithTheSameStatus() throws Exception {
        Map<Integer, ExitStatus> heard = new ConcurrentHashMap<>();
        spawner.reaper().addExitListener((child, status) -> heard.put(child.pid(), status));
        ChildProcess child = spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "exit 3"));
        ExitStatus status = child.onExit().get();
        // The future completes before the listeners run: wait for the listener briefly.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!heard.containsKey(child.pid()) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertEquals(status, heard.get(child.pid()));
    }

    @Test
    void sixtyFourChildrenExitingTogetherAreAllReapedWithTheirCodes() throws Exception {
        int count = 64;
        long exitAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(2) + count * TimeUnit.MILLISECONDS.toNanos(10);
        List<ChildProcess> children = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            // Exits 0.2 ms apart at a fixed CLOCK_MONOTONIC time, each with its own code.
            children.add(spawner.spawn(SpawnRequest.of(SpawnFixture.exitStamp().toString(),
                    "@" + (exitAt + i * 200_000L), tmp.resolve("stamp-" + i).toString(), Integer.toString(100 + i))));
        }
        for (int i = 0; i < count; i++) {
            assertEquals(100 + i, children.get(i).onExit().get().exitCode(), "child " + i);
        }
        assertTrue(spawner.reaper().liveChildren().isEmpty());
    }

    @Test
    void closeKillsAndReapsWhatIsStillRunning() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600"));
        assertFalse(child.isReaped());
        spawner.close();
        assertEquals(SIGKILL, child.onExit().get().signal());
        assertThrows(IllegalStateException.class, () -> spawner.spawn(SpawnRequest.of("/bin/true")));
    }
}
