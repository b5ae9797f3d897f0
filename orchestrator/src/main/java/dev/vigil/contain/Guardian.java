package dev.vigil.contain;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
 * it exits without killing anything.
 */
public final class Guardian {
    public static final String BINARY = "vigil-guardian";
    private static final int SIGUSR1 = 10;
    private static final int SIGKILL = 9;
    private static final long STAND_DOWN_BOUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final ChildProcess process;
    private final Path record;

    private Guardian(ChildProcess process, Path record) {
        this.process = process;
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
        ChildProcess p = spawner.spawn(SpawnRequest.of(argv).discardingOutput());
        return new Guardian(p, record);
    }

    public int pid() {
        return process.pid();
    }

    /** Where it writes its record if this process dies. */
    public Path recordFile() {
        return record;
    }

    /** The orchestrator closes normally: SIGUSR1 (the guardian exits 0, kills nothing), bounded wait, else SIGKILL. */
    public void standDown() {
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
