package dev.vigil.child;

import static dev.vigil.mailbox.MailboxState.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.journal.CommandCompleted;
import dev.vigil.journal.CommandIssued;
import dev.vigil.journal.CommandTimedOut;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.mailbox.CommandResult;
import dev.vigil.mailbox.CommandTimedOutException;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxDescriptor;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.mailbox.RingDrainer;
import dev.vigil.mailbox.WriterRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** One contract, run against the Java and the C child runtime, in sticky and legacy mode, as real processes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChildContractTest {
    /** How long a healthy child may take to start, answer or exit on this shared, noisy machine. */
    static final Duration BOUND = Duration.ofSeconds(15);
    /** How long a legacy child is given to prove it will not exit. */
    static final Duration NOT_EXITING = Duration.ofSeconds(2);

    @TempDir
    Path dir;
    MailboxStore store;
    final List<SpawnedChild> children = new ArrayList<>();
    final List<JournalEvent> journal = Collections.synchronizedList(new ArrayList<>());

    static Stream<Arguments> runtimesAndModes() {
        return Stream.of(ChildKind.values()).flatMap(kind -> Stream.of(ProtocolMode.values()).map(mode -> Arguments.of(kind, mode)));
    }

    @BeforeEach
    void openStore() {
        store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 16);
    }

    @AfterEach
    void cleanUp() {
        children.forEach(SpawnedChild::close);
        store.close();
    }

    private MailboxHandle allocate(ProtocolMode mode) {
        return store.allocate(new MailboxId("contract", "g", children.size()), mode).journalCommandsTo(journal::add, () -> 0L);
    }

    private SpawnedChild start(ChildKind kind, MailboxHandle handle, DemoBehaviour behaviour) {
        SpawnedChild child = kind.spawn(handle, behaviour, dir.resolve("child-" + children.size() + ".log"));
        children.add(child);
        return child;
    }

    private SpawnedChild startReady(ChildKind kind, MailboxHandle handle, DemoBehaviour behaviour) {
        SpawnedChild child = start(kind, handle, behaviour);
        assertEquals(InitOutcome.READY, handle.awaitInit(BOUND), () -> "child did not report INIT_READY: " + handle + " log=" + log());
        return child;
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void servesControlCommandsAndTasksThenExitsZeroOnShutdown(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = startReady(kind, handle, DemoBehaviour.DEFAULT);
        assertEquals(child.pid(), handle.childPid());

        assertEquals(41, handle.control(DemoHandler.OP_ECHO, 41, BOUND).value());
        assertEquals(-7, handle.runTask(DemoHandler.OP_ECHO, -7, BOUND).value());
        CommandResult failed = handle.control(DemoHandler.OP_FAIL, 9, BOUND);
        assertEquals(9, failed.errorCode());
        assertEquals("demo failure requested", failed.errorText());
        assertEquals(IDLE, handle.state());

        assertTrue(handle.publishShutdown(1).won());
        assertEquals(0, child.awaitExit(BOUND), this::log);
        assertNotEquals(0, handle.ackNanos(), "ack recorded");
        assertTrue(handle.heartbeat() > 0);

        List<JournalEvent> commands = List.copyOf(journal);
        assertEquals(3, commands.stream().filter(e -> e instanceof CommandIssued).count(), commands::toString);
        assertEquals(3, commands.stream().filter(e -> e instanceof CommandCompleted).count(), commands::toString);
    }

    /**
     * The upstream failure, deterministically: shutdown published while the child is inside a control handler,
     * then the handler completes. Sticky: the child still exits 0 and acks. Legacy: CONTROL_DONE overwrites
     * SHUTDOWN, the child never exits, and the ring holds both writes with the same seq.
     */
    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void shutdownPublishedInsideAControlHandlerIsLostOnlyInLegacyMode(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = startReady(kind, handle, DemoBehaviour.DEFAULT.withGate(true));
        RingDrainer drainer = new RingDrainer(journal::add);

        handle.sendControl(DemoHandler.OP_ECHO, 5);
        awaitInsideHandler(handle);
        long requestSeq = MailboxDescriptor.seq(handle.stateWord());
        assertTrue(handle.publishShutdown(77).won());
        handle.setGate(1);

        if (mode == ProtocolMode.STICKY) {
            assertEquals(0, child.awaitExit(BOUND), this::log);
            assertNotEquals(0, handle.ackNanos(), "sticky child acked");
            assertEquals(77, handle.shutdownWord());
            assertEquals(CONTROL_DONE, handle.state(), "the handler's result is still there for the parent");
        } else {
            assertNull(child.awaitExit(NOT_EXITING), "legacy child must not exit: its SHUTDOWN was overwritten");
            long word = handle.stateWord();
            assertEquals(CONTROL_DONE, MailboxDescriptor.state(word), MailboxDescriptor.describe(word));
            assertEquals(WriterRole.CHILD.code(), MailboxDescriptor.writerCode(word));
            assertEquals(0, handle.ackNanos(), "legacy child never saw shutdown");
            child.kill();
            drainer.drainFinal(handle, 0);
            List<MailboxTransition> atSeq = transitions().stream().filter(t -> t.seq() == requestSeq + 1).toList();
            assertEquals(2, atSeq.size(), () -> "two writes with seq " + (requestSeq + 1) + ": " + transitions());
            MailboxTransition closer = atSeq.stream().filter(t -> t.writer().equals("CLOSER")).findFirst().orElseThrow();
            MailboxTransition overwriter = atSeq.stream().filter(t -> t.writer().equals("CHILD")).findFirst().orElseThrow();
            assertEquals(SHUTDOWN, closer.toState());
            assertEquals(CONTROL_REQUEST, overwriter.fromState(), "the child's store was computed from the word before SHUTDOWN");
            assertEquals(CONTROL_DONE, overwriter.toState());
            assertEquals(child.pid(), overwriter.writerPid());
        }
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void shutdownPublishedAfterTheHandlerEndsTheChildInBothModes(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = startReady(kind, handle, DemoBehaviour.DEFAULT);
        assertEquals(3, handle.control(DemoHandler.OP_ECHO, 3, BOUND).value());
        handle.publishShutdown(5);
        assertEquals(0, child.awaitExit(BOUND), this::log);
        if (mode == ProtocolMode.LEGACY) {
            assertEquals(SHUTDOWN, handle.state());
        }
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void aTimedOutControlCompletesLateAndTheNextCommandCollectsIt(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = startReady(kind, handle, DemoBehaviour.DEFAULT.withDelayMicros(300_000));
        CommandTimedOutException timedOut = assertThrows(CommandTimedOutException.class,
                () -> handle.control(DemoHandler.OP_ECHO, 11, Duration.ofMillis(20)));
        assertEquals(CONTROL_REQUEST, timedOut.lastState());
        assertEquals(timedOut.commandId(), handle.pendingCommandId());
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (handle.state() != CONTROL_DONE && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(12, handle.control(DemoHandler.OP_ECHO, 12, BOUND).value());
        assertEquals(0, handle.pendingCommandId());

        List<JournalEvent> events = List.copyOf(journal);
        assertTrue(events.get(1) instanceof CommandTimedOut, events::toString);
        CommandCompleted late = (CommandCompleted) events.get(2);
        assertEquals(timedOut.commandId(), late.commandId());
        assertEquals(11, late.result());
        assertTrue(late.elapsedNanos() >= 250_000_000L, "late completion keeps its true elapsed time: " + late);
        handle.publishShutdown(1);
        assertEquals(0, child.awaitExit(BOUND), this::log);
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void aFailedInitIsReportedAndTheChildExitsThree(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = start(kind, handle, DemoBehaviour.DEFAULT.withFailInit(true));
        assertEquals(InitOutcome.FAILED, handle.awaitInit(BOUND), this::log);
        assertEquals(ChildExitCodes.INIT_FAILED, child.awaitExit(BOUND));
        assertTrue(handle.childErrorText().contains("demo init failure requested"), handle.childErrorText());
    }

    /**
     * A demo setting that is not well formed fails init naming it, in every runtime alike. Before, the C child read
     * "200ms" as 200 and "-5" as 2^64 - 5, the Java one failed with a bare NumberFormatException.
     */
    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void aMalformedDemoSettingFailsInitNamingIt(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        Map<String, String> env = new java.util.HashMap<>(kind.env(handle, DemoBehaviour.DEFAULT));
        env.put(DemoBehaviour.TEARDOWN_MILLIS, "200ms");
        SpawnedChild child = SpawnedChild.spawn(kind.argv(ChildKind.TEST_JVM_FLAGS), env, dir.resolve("malformed.log"));
        children.add(child);
        assertEquals(InitOutcome.FAILED, handle.awaitInit(BOUND), this::log);
        assertEquals(ChildExitCodes.INIT_FAILED, child.awaitExit(BOUND), this::log);
        assertTrue(handle.childErrorText().contains("VIGIL_DEMO_TEARDOWN_MILLIS: not a whole number (milliseconds, 0.."),
                handle.childErrorText());
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void aChildWhoseParentIsNotTheNamedParentExitsFour(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        Map<String, String> env = new java.util.HashMap<>(kind.env(handle, DemoBehaviour.DEFAULT));
        env.put("VIGIL_PARENT_PID", "1"); // as if we had died and the child had been reparented
        SpawnedChild child = SpawnedChild.spawn(kind.argv(ChildKind.TEST_JVM_FLAGS), env, dir.resolve("orphan.log"));
        children.add(child);
        assertEquals(ChildExitCodes.PARENT_GONE, child.awaitExit(BOUND), this::log);
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void aSlowFinalizerKeepsBeatingAndAnExitCodeIsPassedThrough(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = startReady(kind, handle, DemoBehaviour.DEFAULT.withTeardown(1000, true).withExitCode(7));
        handle.publishShutdown(3);
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (handle.ackNanos() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        long beat = handle.heartbeat();
        sleep(100);
        assertTrue(handle.heartbeat() > beat, "finalizer beats");
        assertFalse(child.exited());
        assertEquals(7, child.awaitExit(BOUND), this::log);
    }

    @ParameterizedTest(name = "{0} child, {1}")
    @MethodSource("runtimesAndModes")
    void aChildThatIgnoresShutdownKeepsBeatingWithoutAckOrExit(ChildKind kind, ProtocolMode mode) {
        MailboxHandle handle = allocate(mode);
        SpawnedChild child = startReady(kind, handle, DemoBehaviour.DEFAULT.withIgnoreShutdown(true));
        handle.publishShutdown(9);
        assertNull(child.awaitExit(Duration.ofMillis(500)), "ignores shutdown");
        long beat = handle.heartbeat();
        long beatDeadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
        while (handle.heartbeat() == beat && System.nanoTime() < beatDeadline) {
            sleep(20); // an idle child asleep on its doorbell beats once per sleep bound (VIGIL_CHILD_SLEEP_MILLIS, 1 s)
        }
        assertTrue(handle.heartbeat() > beat, "still serving, still beating");
        assertEquals(0, handle.ackNanos());
        if (mode == ProtocolMode.STICKY) { // legacy: SHUTDOWN occupies the state word, no command can be placed
            assertEquals(4, handle.control(DemoHandler.OP_ECHO, 4, BOUND).value(), "and still answering");
        }
        assertEquals(137, child.kill());
    }

    /** The child's loop beats every iteration; a handler blocked on the gate does not, so a still heartbeat means "inside". */
    static void awaitInsideHandler(MailboxHandle handle) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        long beat = handle.heartbeat();
        long stillSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            sleep(10);
            long now = handle.heartbeat();
            if (now != beat) {
                beat = now;
                stillSince = System.nanoTime();
            } else if (System.nanoTime() - stillSince > 250_000_000L) {
                assertEquals(CONTROL_REQUEST, handle.state());
                return;
            }
        }
        fail("child never entered its handler: " + handle);
    }

    private List<MailboxTransition> transitions() {
        return journal.stream().flatMap(e -> MailboxTransitionBatch.expand(e).stream()).toList();
    }

    private String log() {
        StringBuilder text = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".log")).toList()) {
                text.append(file.getFileName()).append(": ").append(Files.readString(file)).append('\n');
            }
        } catch (java.io.IOException e) {
            text.append(e);
        }
        return text.toString();
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
