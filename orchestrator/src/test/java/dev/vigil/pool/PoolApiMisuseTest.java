package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.PoolStarted;
import dev.vigil.spawn.internal.Linux;

/**
 * The Java API misused as a new user would (README "The Java API"): each misuse is one exception naming the argument,
 * before anything is spawned or journaled, never a hang.
 */
@Timeout(60)
class PoolApiMisuseTest {
    private static final ChildSpec SLEEPER = ChildSpec.exec("/bin/sleep", "30");

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
    void aSecondOpenPoolWithTheSameIdOrTheSameLogFileNameIsRefusedNamingBoth() {
        try (Pool first = Pool.builder(orchestrator, "a/b").group("g", 1, SLEEPER).start()) {
            IllegalArgumentException same = assertThrows(IllegalArgumentException.class,
                    () -> Pool.builder(orchestrator, "a/b").group("g", 1, SLEEPER).start());
            assertTrue(same.getMessage().startsWith("poolId: duplicate open pool's id 'a/b'"), same.getMessage());
            IllegalArgumentException clash = assertThrows(IllegalArgumentException.class,
                    () -> Pool.builder(orchestrator, "a_b").group("g", 1, SLEEPER).start());
            assertTrue(clash.getMessage().startsWith("poolId: 'a_b' and the open pool's id 'a/b' name the same child log"
                    + " files ('a_b'"), clash.getMessage());
            assertEquals(1, first.children().size());
            orchestrator.journal().flush(Duration.ofSeconds(5));
            List<JournalEvent> events = JournalChecks.readAll(orchestrator.journal().writer().dir());
            assertEquals(1, events.stream().filter(e -> e instanceof PoolStarted).count(), "only the first pool started");
            assertEquals(1, events.stream().filter(e -> e instanceof ChildSpawned).count(), "only its child spawned");
        }
        // closed with nothing tracked: the id is free again
        Pool.builder(orchestrator, "a_b").group("g", 1, SLEEPER).start().close();
    }

    /**
     * {@code ulimit -n 64} and a pool of 100: refused before the first spawn, naming the figures. Before, the start
     * failed mid-way ("errno=24 (Too many open files) stage=pipe2") after partial spawns and a rollback close.
     */
    @Test
    void aPoolTheOpenFileLimitCannotHoldIsRefusedBeforeAnySpawn() throws Exception {
        long[] limit = new long[2];
        assertEquals(0, Linux.calls().getrlimit(Linux.RLIMIT_NOFILE, limit));
        long open;
        try (var fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
            open = fds.count();
        }
        try {
            assertEquals(0, Linux.calls().setrlimit(Linux.RLIMIT_NOFILE, new long[] {open + 80, limit[1]}));
            PoolStartException e = assertThrows(PoolStartException.class,
                    () -> Pool.builder(orchestrator, "wide").group("g", 100, SLEEPER).start());
            assertTrue(e.getMessage().matches("pool=wide start refused: 100 children need \\d+ more open files, \\d+ are"
                    + " open, RLIMIT_NOFILE is soft=" + (open + 80) + " hard=" + limit[1] + ": raise it .*"), e.getMessage());
            orchestrator.journal().flush(Duration.ofSeconds(5));
            assertEquals(0, JournalChecks.readAll(orchestrator.journal().writer().dir()).stream()
                    .filter(ev -> ev instanceof ChildSpawned).count(), "nothing spawned");
            // with room for them, the same pool starts
            assertEquals(0, Linux.calls().setrlimit(Linux.RLIMIT_NOFILE, new long[] {open + 250, limit[1]}));
            Pool.builder(orchestrator, "wide").group("g", 100, SLEEPER).start().close();
        } finally {
            Linux.calls().setrlimit(Linux.RLIMIT_NOFILE, limit);
        }
    }

    /**
     * An addChild at the open-file limit: refused before the spawn with one line naming the limit, nothing spawned or
     * journaled, the child index not used up; with room again the next addChild takes that index.
     */
    @Test
    void anAddChildTheOpenFileLimitCannotHoldIsRefusedBeforeTheSpawnAndLeavesNothing() throws Exception {
        long[] limit = new long[2];
        assertEquals(0, Linux.calls().getrlimit(Linux.RLIMIT_NOFILE, limit));
        try (Pool pool = Pool.builder(orchestrator, "tight").group("g", 1, SLEEPER).start()) {
            long open;
            try (var fds = java.nio.file.Files.list(Path.of("/proc/self/fd"))) {
                open = fds.count() - 1;
            }
            try {
                assertEquals(0, Linux.calls().setrlimit(Linux.RLIMIT_NOFILE, new long[] {open, limit[1]})); // at the limit
                PoolStartException e = assertThrows(PoolStartException.class, () -> pool.addChild("g"));
                assertTrue(e.getMessage().matches("pool=tight group=g addChild refused: 1 child needs \\d+ more open"
                        + " files, \\d+ are open, RLIMIT_NOFILE is soft=" + open + " hard=" + limit[1]
                        + ": raise it .*"), e.getMessage());
                assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            } finally {
                Linux.calls().setrlimit(Linux.RLIMIT_NOFILE, limit);
            }
            assertEquals(1, pool.children().size(), "nothing tracked");
            orchestrator.journal().flush(Duration.ofSeconds(5));
            assertEquals(1, JournalChecks.readAll(orchestrator.journal().writer().dir()).stream()
                    .filter(ev -> ev instanceof ChildSpawned).count(), "nothing spawned");
            assertEquals(1, pool.addChild("g").index(), "the refused addChild did not use up index 1");
            assertEquals(2, pool.children().size());
        }
    }

    /**
     * A timeout of zero or less, or null, is refused naming it, before a command is placed: before, a negative
     * startTimeout started the pool (no wait at all), a negative control timeout ran the command, a null one was a
     * bare NullPointerException ("Cannot invoke ... toNanos()"); a null argument of a spec was "NullPointerException: null".
     */
    @Test
    void aTimeoutOfZeroOrLessOrANullArgumentIsRefusedNamingIt() {
        for (Duration d : new Duration[] {Duration.ZERO, Duration.ofSeconds(-1), null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Pool.builder(orchestrator, "t").startTimeout(d));
            assertEquals("startTimeout=" + d + " must be > 0", e.getMessage());
        }
        NullPointerException arg = assertThrows(NullPointerException.class, () -> ChildSpec.exec("/bin/sleep", "1", null));
        assertEquals("args[1] is null", arg.getMessage());
        IllegalArgumentException stop = assertThrows(IllegalArgumentException.class,
                () -> ChildSpec.exec("/bin/sleep", "1").withStopSignal(19));
        assertTrue(stop.getMessage().startsWith("stopSignal=19 is SIGSTOP: it pauses a process and never ends it"),
                stop.getMessage());
        Pool pool = Pool.builder(orchestrator, "m").group("g", 1, ChildSpec.cDemo()).start();
        for (Duration d : new Duration[] {Duration.ofSeconds(-1), null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> pool.control("g", 0, 1, 0, d));
            assertEquals("timeout=" + d + " must be > 0", e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> pool.runTask("g", 0, 1, 0, d));
        }
        assertEquals(1, pool.control("g", 0, 1, 0, Duration.ofSeconds(5)).commandId(), "the refused ones were not placed");
        pool.close();
        pool.closeWithReport(); // a second close is a no-op
        AdmissionClosedException closed = assertThrows(AdmissionClosedException.class,
                () -> pool.control("g", 0, 1, 0, Duration.ofSeconds(1)));
        assertTrue(closed.getMessage().endsWith("admission closed, the pool is closing or closed"), closed.getMessage());
    }
}
