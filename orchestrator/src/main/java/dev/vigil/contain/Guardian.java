package dev.vigil.contain;

import static dev.vigil.close.decision.EscalationStep.SIGKILL;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.vigil.spawn.ChildProcess;
import dev.vigil.spawn.SignalException;
import dev.vigil.spawn.SpawnRequest;
import dev.vigil.spawn.Spawner;

/**
 * The orchestrator's side of {@code vigil-guardian} (native/src/guardian): a small process started with the
 * orchestrator whose only job is to outlive it. It watches the orchestrator through a pidfd and, when it
 * dies by any signal, kills every pool of it at once (cgroup mode: {@code cgroup.kill} of the
 * orchestrator's cgroup; fallback: SIGKILL to each process group in the pgroups file) within 1 s, then
 * writes its record ({@link GuardianRecord}) beside the journal. {@link #standDown()} at a normal close:
 * it exits without killing anything. A guardian that ends before that (killed by the OOM killer or by a
 * {@code kill} meant for something else) is started again, 100 ms after its exit is reaped: before,
 * nothing noticed, and the orchestrator's crash then left every pool's setsid grandchildren alive.
 */
public final class Guardian {
    public static final String BINARY = "vigil-guardian";
    private static final int SIGUSR1 = 10;
    private static final long STAND_DOWN_BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final long RESTART_DELAY_MILLIS = 100;

    private final Spawner spawner;
    private final SpawnRequest request;
    private final Path record;
    /** The guardian running now; replaced when one ends before {@link #standDown()}. Guarded by this. */
    private ChildProcess process;
    private boolean standingDown;
    private int restarts;

    private Guardian(Spawner spawner, SpawnRequest request, Path record) {
        this.spawner = spawner;
        this.request = request;
        this.record = record;
    }

    /**
     * Starts the guardian of this process.
     *
     * @param record where it writes its record if this process dies
     * @throws ContainmentException when the binary is missing (one line naming the path and the setting to turn it off)
     */
    public static Guardian start(Spawner spawner, Path nativeDir, Containment containment, Path record) {
        Path binary = nativeDir.resolve(BINARY).toAbsolutePath();
        if (!Files.isExecutable(binary)) {
            throw new ContainmentException("guardian binary missing: path=" + binary
                    + " (build native/ with make, or run without crash cleanup: vigil.guardian=off)");
        }
        ProcessIdentity self = ProcessIdentity.self();
        List<String> argv = List.of(binary.toString(), Integer.toString(self.pid()), Long.toString(self.startTicks()),
                record.toAbsolutePath().toString(), containment.mode().label(),
                containment.mode() == ContainmentMode.CGROUP ? containment.root().toString()
                        : containment.processGroupsFile().toAbsolutePath().toString());
        Guardian g = new Guardian(spawner, SpawnRequest.of(argv).discardingOutput(), record);
        synchronized (g) {
            g.process = spawner.spawn(g.request);
            g.watch(g.process);
        }
        return g;
    }

    /**
     * When {@code p} ends before {@link #standDown()}, a new guardian starts, on a pool thread (the exit is seen on the
     * reaper's, which must not wait on a spawn); an exit after it starts nothing, and no thread.
     */
    private void watch(ChildProcess p) {
        p.onExit().whenComplete((status, lost) -> {
            if (!standingDown()) {
                CompletableFuture.runAsync(() -> restartIfEnded(p),
                        CompletableFuture.delayedExecutor(RESTART_DELAY_MILLIS, TimeUnit.MILLISECONDS));
            }
        });
    }

    private synchronized boolean standingDown() {
        return standingDown;
    }

    private synchronized void restartIfEnded(ChildProcess ended) {
        if (standingDown || ended != process) {
            return;
        }
        try {
            process = spawner.spawn(request);
            restarts++;
            watch(process);
        } catch (RuntimeException spawnerClosed) {
            // the orchestrator is closing: nothing left to guard
        }
    }

    /** How many times a guardian that ended early was started again. */
    public synchronized int restarts() {
        return restarts;
    }

    public synchronized int pid() {
        return process.pid();
    }

    /** Where it writes its record if this process dies. */
    public Path recordFile() {
        return record;
    }

    /** The orchestrator closes normally: SIGUSR1 (the guardian exits 0, kills nothing), bounded wait, else SIGKILL. */
    public void standDown() {
        ChildProcess process;
        synchronized (this) {
            standingDown = true;
            process = this.process;
        }
        try {
            process.signal(SIGUSR1);
            process.onExit().get(STAND_DOWN_BOUND_NANOS, TimeUnit.NANOSECONDS);
        } catch (SignalException gone) {
            // already reaped
        } catch (TimeoutException | ExecutionException e) {
            try {
                process.signal(SIGKILL);
            } catch (SignalException gone) {
                // reaped meanwhile
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
