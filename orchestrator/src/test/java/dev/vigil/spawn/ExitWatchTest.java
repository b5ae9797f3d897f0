package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A thread waiting for exits itself ({@link ExitWatch}, the close engine's) beside the reaper thread, on real processes:
 * a watched child's exit wakes the watch and not the reaper, a child handed back is the reaper's again, and an exit
 * both threads collect is told once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExitWatchTest {
    private static final int SIGKILL = 9;

    private Spawner spawner;
    private ExitWatch watch;

    @BeforeEach
    void open() {
        spawner = SpawnFixture.spawner(ReapMode.PIDFD_POLL);
        watch = ExitWatch.open(spawner.reaper());
    }

    @AfterEach
    void nothingIsLeftBehind() throws InterruptedException {
        watch.close(); // hands back what it still watches: the spawner's close reaps it (bounded, else it throws)
        spawner.close();
        SpawnFixture.assertNoChildrenLeft();
    }

    @Test
    void aWatchedChildsExitIsCollectedByTheWatchNotTheReaper() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600"));
        AtomicReference<String> on = collectedOn(child);
        int fd = child.pidfd();
        awaitInReaperSet(fd, true); // the reaper watches it first, as a pool's children are watched before their close
        assertTrue(watch.watch(child));
        assertFalse(inReaperSet(fd), "the pidfd left the reaper's epoll set");
        child.signal(SIGKILL);
        Thread.sleep(300);
        // its pidfd left the reaper's set: the reaper never woke for it
        assertFalse(child.onExit().isDone(), "the reaper collected a child the watch had taken");
        assertEquals(1, watch.await(5_000));
        assertEquals(1, watch.reapReady());
        assertEquals(SIGKILL, child.onExit().getNow(null).signal());
        assertEquals(Thread.currentThread().getName(), on.get(), "collected on the watching thread");
        assertFalse(watch.watching());
    }

    @Test
    void aChildHandedBackIsCollectedByTheReaper() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600"));
        AtomicReference<String> on = collectedOn(child);
        int fd = child.pidfd();
        assertTrue(watch.watch(child));
        watch.unwatch(child);
        assertTrue(inReaperSet(fd), "handed back into the reaper's epoll set");
        child.signal(SIGKILL);
        assertEquals(SIGKILL, child.onExit().get(10, TimeUnit.SECONDS).signal());
        Thread.sleep(50); // the listeners run after the future completes
        assertEquals(spawner.reaper().threadName(), on.get(), "collected on the reaper thread");
        assertEquals(-1, watch.await(50), "nothing left to wake the watch");
    }

    private void awaitInReaperSet(int fd, boolean in) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (inReaperSet(fd) != in) {
            assertTrue(System.nanoTime() < deadline, "pidfd " + fd + " never " + (in ? "in" : "out of") + " the reaper's set");
            Thread.sleep(5);
        }
    }

    /** Whether {@code fd} is registered in the reaper's epoll set (its /proc/self/fdinfo lists "tfd: N" per entry). */
    private boolean inReaperSet(int fd) throws Exception {
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/fdinfo/"
                + spawner.reaper().epollSet()))) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 1 && f[0].equals("tfd:") && Integer.parseInt(f[1]) == fd) {
                return true;
            }
        }
        return false;
    }

    /** The thread that collects {@code child}'s exit: listeners run there, synchronously (onExit stages may not). */
    private AtomicReference<String> collectedOn(ChildProcess child) {
        AtomicReference<String> on = new AtomicReference<>();
        spawner.reaper().addExitListener((c, status) -> {
            if (c == child) {
                on.set(Thread.currentThread().getName());
            }
        });
        return on;
    }

    @Test
    void anExitCollectedByBothThreadsIsToldOnce() throws Exception {
        Map<Integer, AtomicInteger> told = new ConcurrentHashMap<>();
        spawner.reaper().addExitListener((c, status) -> told.computeIfAbsent(c.pid(), p -> new AtomicInteger())
                .incrementAndGet());
        List<ChildProcess> children = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600"));
            children.add(child);
            if (i % 2 == 0) {
                assertTrue(watch.watch(child)); // the others stay the reaper's
            }
        }
        for (ChildProcess child : children) {
            child.signal(SIGKILL);
        }
        int collected = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (collected < 20 && System.nanoTime() < deadline) {
            if (watch.await(100) > 0) {
                collected += watch.reapReady();
            }
        }
        assertEquals(20, collected);
        for (ChildProcess child : children) {
            child.onExit().get(10, TimeUnit.SECONDS);
            // a second collector (as the reaper racing the watch) finds the status and tells nobody again
            assertEquals(SIGKILL, spawner.reaper().reapNow(child).signal());
        }
        Thread.sleep(50); // listeners run after the future completes
        for (ChildProcess child : children) {
            assertEquals(1, told.get(child.pid()).get(), "pid=" + child.pid() + " told " + told.get(child.pid()));
        }
    }
}
