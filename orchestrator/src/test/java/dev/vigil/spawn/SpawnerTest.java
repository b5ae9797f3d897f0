package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.spawn.internal.Linux;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The spawner on real processes: what the shim does to a child, and spawn failures that leave nothing. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpawnerTest {
    private static final int SIGTERM = 15;

    @TempDir
    Path tmp;

    Spawner spawner;

    @BeforeEach
    void startSpawner() {
        spawner = SpawnFixture.spawner(ReapMode.PIDFD_POLL);
    }

    @AfterEach
    void nothingIsLeftBehind() throws InterruptedException {
        spawner.close();
        SpawnFixture.assertNoChildrenLeft();
    }

    @Test
    void aMissingBinaryFailsWithErrnoAndCommandAndLeavesNothing() throws InterruptedException {
        SpawnException failure = assertThrows(SpawnException.class, () -> spawner.spawn(SpawnRequest.of("/nope")));
        assertEquals(2, failure.errno());
        assertEquals("/nope", failure.command());
        assertEquals("exec", failure.stage());
        assertTrue(failure.getMessage().startsWith("spawn failed: command=/nope errno=2 (No such file or directory) stage=exec"),
                failure.getMessage());
        assertEquals(List.of(), ProcFs.ourChildren(), "the failed shim was reaped at once");
        assertTrue(spawner.reaper().liveChildren().isEmpty());
    }

    @Test
    void aCommandMissingFromPathFailsWithEnoent() {
        SpawnException failure = assertThrows(SpawnException.class,
                () -> spawner.spawn(SpawnRequest.of("vigil-no-such-command", "arg")));
        assertEquals(2, failure.errno());
        assertEquals("vigil-no-such-command arg", failure.command());
    }

    @Test
    void aNonExecutableFileFailsWithEaccesAndLeavesNothing() throws Exception {
        Path script = Files.writeString(tmp.resolve("not-executable.sh"), "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rw-r--r--"));
        SpawnException failure = assertThrows(SpawnException.class, () -> spawner.spawn(SpawnRequest.of(script.toString())));
        assertEquals(13, failure.errno(), failure.getMessage());
        assertTrue(failure.getMessage().contains("command=" + script + " errno=13 (Permission denied) stage=exec"), failure.getMessage());
        assertEquals(List.of(), ProcFs.ourChildren());
    }

    @Test
    void aMissingWorkDirFailsAtChdir() {
        Path missing = tmp.resolve("no-such-dir");
        SpawnException failure = assertThrows(SpawnException.class,
                () -> spawner.spawn(SpawnRequest.of("/bin/true").withWorkDir(missing)));
        assertEquals("chdir", failure.stage());
        assertEquals(2, failure.errno());
        assertTrue(failure.getMessage().contains("dir=" + missing), failure.getMessage());
    }

    @Test
    void anUnopenableRedirectFailsAtPosixSpawn() {
        SpawnException failure = assertThrows(SpawnException.class, () -> spawner.spawn(
                SpawnRequest.of("/bin/true").withStdout(Redirect.writeTo(tmp.resolve("no-such-dir/out.txt")))));
        assertEquals("posix_spawn", failure.stage());
        assertEquals(2, failure.errno(), failure.getMessage()); // ENOENT: posix_spawnp's own error number
        assertEquals(List.of(), ProcFs.ourChildren());
    }

    @Test
    void theChildRunsTheCommandAsLeaderOfItsOwnProcessGroup() throws Exception {
        ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600"));
        ProcFs.Stat stat = ProcFs.stat(child.pid()).orElseThrow();
        assertEquals("sleep", stat.comm(), "the shim exec'ed the command in place");
        assertEquals(child.pid(), stat.pgrp(), "pgrp");
        assertEquals(ProcessHandle.current().pid(), stat.ppid(), "ppid");
        assertEquals(child.pid(), child.processGroupId());
    }

    @Test
    void signallingTheProcessGroupReachesGrandchildren() throws Exception {
        Path grandchildPid = tmp.resolve("grandchild.pid");
        ChildProcess child = spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "sleep 600 & echo $! > " + grandchildPid + "; wait"));
        int grandchild = awaitPid(grandchildPid);
        assertEquals(child.pid(), ProcFs.stat(grandchild).orElseThrow().pgrp(), "grandchild's pgrp");
        child.signalProcessGroup(SIGTERM);
        assertEquals(SIGTERM, child.onExit().get().signal());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        while (!ProcFs.goneOrDeadElsewhere(grandchild) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(ProcFs.goneOrDeadElsewhere(grandchild), "grandchild pid=" + grandchild + " " + ProcFs.stat(grandchild));
    }

    @Test
    void inheritedDescriptorsAreClosedBeforeExec() throws Exception {
        Path listing = tmp.resolve("fds.txt");
        // ls opens /proc/self/fd itself (fd 3); anything else came from the JVM.
        ChildProcess child = spawner.spawn(SpawnRequest.of("ls", "/proc/self/fd").withStdout(Redirect.writeTo(listing)));
        assertEquals(0, child.onExit().get().exitCode());
        Set<String> fds = Set.copyOf(Files.readAllLines(listing));
        assertTrue(Set.of("0", "1", "2", "3").containsAll(fds), "open descriptors in the child: " + fds);
    }

    /**
     * A child gets copies of the few lowest descriptors only, not of the orchestrator's whole table (which holds a pidfd
     * per running child): with posix_spawn, every spawn copied the table and its exec closed each copy, a cost per
     * spawn that grew with the children already running (a 9,000-child start: ~10 s of CPU in dup_fd and filp_flush).
     * The table a process was given stays its size across exec: /proc/PID/status FDSize.
     */
    @Test
    void aChildIsGivenASmallDescriptorTableHoweverManyTheOrchestratorHolds() throws Exception {
        assertEquals(0, spawner.spawn(SpawnRequest.of("/bin/true")).onExit().get().exitCode()); // the spawner threads are up
        int held = 4000;
        List<Integer> fds = new ArrayList<>(held);
        try {
            for (int i = 0; i < held; i++) {
                int fd = Linux.calls().fcntl(0, Linux.F_DUPFD_CLOEXEC, 0);
                assertTrue(fd >= 0, "dup of stdin failed: errno=" + Linux.errno());
                fds.add(fd);
            }
            Path status = tmp.resolve("status.txt");
            ChildProcess child = spawner.spawn(SpawnRequest.of("cat", "/proc/self/status").withStdout(Redirect.writeTo(status)));
            assertEquals(0, child.onExit().get().exitCode());
            String size = Files.readAllLines(status).stream().filter(line -> line.startsWith("FDSize:")).findFirst().orElseThrow();
            int fdSize = Integer.parseInt(size.substring("FDSize:".length()).trim());
            assertTrue(fdSize <= 1024, "the child's descriptor table has room for " + fdSize + " (this process holds "
                    + (held + 3) + " and more)");
        } finally {
            fds.forEach(fd -> Linux.calls().close(fd));
        }
    }

    @Test
    void theChildStartsWithNoBlockedOrIgnoredSignals() throws Exception {
        Path status = tmp.resolve("status.txt");
        ChildProcess child = spawner.spawn(SpawnRequest.of("cat", "/proc/self/status").withStdout(Redirect.writeTo(status)));
        assertEquals(0, child.onExit().get().exitCode());
        Map<String, String> fields = Files.readAllLines(status).stream()
                .filter(line -> line.startsWith("Sig"))
                .collect(Collectors.toMap(line -> line.substring(0, line.indexOf(':')), line -> line.substring(line.indexOf(':') + 1).trim()));
        assertEquals("0000000000000000", fields.get("SigBlk"), "blocked (the JVM thread blocks SIGQUIT)");
        assertEquals("0000000000000000", fields.get("SigIgn"), "ignored");
    }

    @Test
    void workDirEnvironmentAndRedirectsReachTheChild() throws Exception {
        Path input = Files.writeString(tmp.resolve("in.txt"), "from-stdin\n");
        Path output = tmp.resolve("out.txt");
        Path errors = tmp.resolve("err.txt");
        ChildProcess child = spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "pwd; echo \"$VIGIL_TEST_VALUE\"; cat; echo oops >&2")
                .withEnvironment(Map.of("VIGIL_TEST_VALUE", "hello"))
                .withWorkDir(tmp)
                .withStdin(Redirect.readFrom(input))
                .withStdout(Redirect.writeTo(output))
                .withStderr(Redirect.appendTo(errors)));
        assertEquals(0, child.onExit().get().exitCode());
        assertEquals(List.of(tmp.toRealPath().toString(), "hello", "from-stdin"), Files.readAllLines(output));
        assertEquals(List.of("oops"), Files.readAllLines(errors));
    }

    @Test
    void manyThreadsSpawningAtOnceAllGetTheirChildren() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<ChildProcess>> spawned = new ArrayList<>();
            for (int i = 0; i < 32; i++) {
                int code = i;
                spawned.add(callers.submit(() -> spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "exit " + code))));
            }
            for (int i = 0; i < spawned.size(); i++) {
                assertEquals(i, spawned.get(i).get().onExit().get().exitCode());
            }
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aBatchWithAFailureInTheMiddleStartsTheOthersAndHandsEachToTheReaper() throws Exception {
        List<SpawnRequest> requests = List.of(SpawnRequest.of("/bin/sh", "-c", "exit 1"), SpawnRequest.of("/nope"),
                SpawnRequest.of("/bin/sh", "-c", "exit 3"), SpawnRequest.of("sleep", "30"));
        List<Spawner.Spawned> out = spawner.spawnAll(requests);
        assertEquals(requests.size(), out.size());
        SpawnException failure = (SpawnException) out.get(1).failure();
        assertEquals(2, failure.errno(), failure.getMessage());
        assertEquals("/nope", failure.command());
        assertEquals(1, out.get(0).childOrThrow().onExit().get(10, TimeUnit.SECONDS).exitCode());
        assertEquals(3, out.get(2).childOrThrow().onExit().get(10, TimeUnit.SECONDS).exitCode());
        ChildProcess sleeper = out.get(3).childOrThrow();
        // every child that started is the reaper's: the failed shim was reaped at once, the sleeper is watched
        assertEquals(List.of(sleeper), spawner.reaper().liveChildren());
        assertEquals(List.of(sleeper.pid()), ProcFs.ourChildren().stream().map(ProcFs.Stat::pid).toList());
        sleeper.signal(SIGTERM);
        assertEquals(SIGTERM, sleeper.onExit().get(10, TimeUnit.SECONDS).signal());
    }

    @Test
    void aMissingShimIsAClearNativeError() {
        NativePartUnavailableException failure = assertThrows(NativePartUnavailableException.class,
                () -> Spawner.start(new SpawnerOptions(tmp, ReapMode.PIDFD_POLL)));
        assertTrue(failure.getMessage().startsWith("native part unavailable because the spawn shim is missing: path="
                + tmp.resolve("vigil-spawn-shim")), failure.getMessage());
    }

    @Test
    void aFailingListenerDoesNotStopReaping() throws Exception {
        spawner.reaper().addExitListener((child, status) -> {
            throw new IllegalStateException("listener failure on purpose");
        });
        assertEquals(1, spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "exit 1")).onExit().get().exitCode());
        assertEquals(2, spawner.spawn(SpawnRequest.of("/bin/sh", "-c", "exit 2")).onExit().get().exitCode());
    }

    @Test
    void closingFromAnExitListenerIsRefusedInsteadOfWaitingForItself() throws Exception {
        CompletableFuture<RuntimeException> outcome = new CompletableFuture<>();
        spawner.reaper().addExitListener((child, status) -> {
            try {
                spawner.close();
                outcome.complete(null);
            } catch (RuntimeException e) {
                outcome.complete(e);
            }
        });
        spawner.spawn(SpawnRequest.of("/bin/true"));
        RuntimeException refused = outcome.get();
        assertTrue(refused instanceof IllegalStateException && refused.getMessage().contains("reaper thread"), String.valueOf(refused));
    }

    @Test
    void aChildWhoseStatusSomeoneElseTookFailsLoudlyAndIsNeverSignalledAgain() throws Exception {
        try (Spawner fallback = SpawnFixture.spawner(ReapMode.WAITPID_BACKOFF)) {
            // A thief blocked in waitpid(pid) usually wins the exit against a reaper pausing up to 50 ms between
            // looks; on a loaded machine the reaper's look can come first (the thief then gets -1, ECHILD and the
            // child exits normally): try again with a new child, a few times at most.
            ChildProcess stolen = null;
            for (int attempt = 0; attempt < 10 && stolen == null; attempt++) {
                ChildProcess candidate = fallback.spawn(SpawnRequest.of("sleep", "600"));
                CompletableFuture<Integer> thief = CompletableFuture.supplyAsync(
                        () -> Linux.calls().waitpid(candidate.pid(), new int[1], 0));
                Thread.sleep(300);
                candidate.signal(9);
                if (thief.get() == candidate.pid()) {
                    stolen = candidate;
                } else {
                    assertEquals(9, candidate.onExit().get().signal(), "the reaper won this one: an ordinary exit");
                }
            }
            assertNotNull(stolen, "the thief never won the exit in 10 attempts");
            ChildProcess child = stolen;
            ExecutionException lost = assertThrows(ExecutionException.class, () -> child.onExit().get());
            assertTrue(lost.getCause() instanceof ChildLostException && lost.getCause().getMessage().contains("pid=" + child.pid()),
                    String.valueOf(lost.getCause()));
            SignalException refused = assertThrows(SignalException.class, () -> child.signal(15));
            assertTrue(refused.getMessage().contains("exit status lost"), refused.getMessage());
            assertTrue(fallback.reaper().liveChildren().isEmpty());
            // The reaper goes on with the others.
            assertEquals(5, fallback.spawn(SpawnRequest.of("/bin/sh", "-c", "exit 5")).onExit().get().exitCode());
        }
    }

    /**
     * A memory fault met earlier on the reaping thread (a cut mapped file) is raised at its next return from native code,
     * which may be the reap's waitpid: the status that call consumed must survive, and the retry must not take its own
     * earlier reap's ECHILD for a lost child. The close engine met exactly this after a mailbox map was cut mid-close: the
     * child was reported lost and its close waited for an exit that could never come. The hook stands in for the fault:
     * HotSpot raises it where it likes, not where a test could put a real one.
     */
    @Test
    void aFaultRaisedAsTheReapReturnsDoesNotLoseTheStatus() throws Exception {
        int[] pid = new int[1];
        assertEquals(0, Linux.calls().posix_spawnp(pid, "/bin/sh", null, null, new CharSequence[]{"sh", "-c", "exit 7"},
                new CharSequence[0]));
        // watched by no reaper: this thread's tries are the only ones
        ChildProcess child = new ChildProcess(pid[0], -1, List.of("sh", "-c", "exit 7"), 0);
        java.util.concurrent.atomic.AtomicInteger faults = new java.util.concurrent.atomic.AtomicInteger();
        ChildProcess.afterReapCall = () -> {
            if (faults.getAndIncrement() == 0) {
                throw new InternalError("a fault occurred in a recent unsafe memory access operation in compiled Java code");
            }
        };
        try {
            ExitStatus status = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (status == null && System.nanoTime() < deadline) {
                try {
                    status = child.tryReap();
                } catch (InternalError fault) {
                    // the engine survives it and tries again
                }
                if (status == null) {
                    Thread.sleep(5);
                }
            }
            assertNotNull(status, "no exit within 20 s");
            assertTrue(faults.get() >= 1, "the fault was never raised");
            assertEquals(7, status.exitCode(), status.describe());
            assertTrue(child.isReaped());
        } finally {
            ChildProcess.afterReapCall = null;
        }
    }

    private static int awaitPid(Path file) throws Exception {
        while (true) {
            if (Files.exists(file)) {
                String text = Files.readString(file).trim();
                if (!text.isEmpty() && text.chars().allMatch(Character::isDigit)) {
                    return Integer.parseInt(text);
                }
            }
            Thread.sleep(5);
        }
    }
}
