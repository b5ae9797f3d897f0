package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.ChildKind;
import dev.vigil.child.SpawnedChild;
import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.journal.JournalEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The randomized race with real child processes on the real store: one child per cycle (allocate, spawn,
 * commands, shutdown at a random moment, reap, drain, release). C children carry 500 cycles per mode
 * (they start in about a millisecond); Java children run a few cycles per mode.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ProcessShutdownRaceTest {
    @TempDir
    Path dir;

    static Stream<Arguments> runs() {
        return Stream.of(
                Arguments.of(ChildKind.C, ProtocolMode.STICKY, Integer.getInteger("vigil.race.processCycles", 500)),
                Arguments.of(ChildKind.C, ProtocolMode.LEGACY, Integer.getInteger("vigil.race.legacyProcessCycles", 500)),
                Arguments.of(ChildKind.JAVA, ProtocolMode.STICKY, 12),
                Arguments.of(ChildKind.JAVA, ProtocolMode.LEGACY, 12));
    }

    @ParameterizedTest(name = "{0} children, {1}, {2} cycles")
    @MethodSource("runs")
    void shutdownsPublishedDuringControlCommandsOfRealChildren(ChildKind kind, ProtocolMode mode, int cycles) {
        SplittableRandom random = new SplittableRandom(kind.ordinal() * 31L + mode.ordinal());
        List<JournalEvent> events = new ArrayList<>();
        RingDrainer drainer = new RingDrainer(events::add);
        int lost = 0;
        long started = System.nanoTime();
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 8)) {
            for (int cycle = 0; cycle < cycles; cycle++) {
                MailboxId id = new MailboxId("race", kind + "-" + mode, cycle);
                MailboxHandle handle = store.allocate(id, mode);
                DemoBehaviour behaviour = DemoBehaviour.DEFAULT.withDelayMicros(random.nextInt(150));
                boolean killed = false;
                try (SpawnedChild child = kind.spawn(handle, behaviour, dir.resolve("children.log"))) {
                    ShutdownRaceSchedule.CycleChild observed = new ShutdownRaceSchedule.CycleChild() {
                        @Override
                        public Integer status() {
                            return child.awaitExit(Duration.ZERO);
                        }

                        @Override
                        public int stopUnreachable() {
                            return child.kill();
                        }
                    };
                    if (ShutdownRaceSchedule.run(handle, observed, random, 300_000, () -> DemoHandler.OP_ECHO) == ShutdownRaceSchedule.Outcome.LOST) {
                        lost++;
                        killed = true;
                    } else if (mode == ProtocolMode.STICKY) {
                        assertNotEquals(0, handle.ackNanos(), "sticky child exited without ack: cycle=" + cycle);
                    }
                }
                events.clear();
                drainer.drainFinal(handle, 0);
                drainer.forget(handle);
                String problem = ShutdownRaceSchedule.checkJournal(handle, events, killed);
                assertNull(problem, "cycle=" + cycle);
                assertTrue(store.release(id), "released after reap");
            }
        }
        System.out.printf("process race: children=%s mode=%s cycles=%d lostShutdowns=%d seconds=%.1f%n", kind, mode, cycles, lost,
                (System.nanoTime() - started) / 1e9);
        if (mode == ProtocolMode.STICKY) {
            assertEquals(0, lost, "sticky lost shutdowns");
        } else if (cycles >= 100) {
            assertTrue(lost > 0, "legacy must lose some shutdowns on this schedule");
        }
    }
}
