package dev.vigil.child;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.SpawnFileAction;

/**
 * A real child process for tests: started with posix_spawnp (jnr-posix), waited with waitpid on its own pid
 * only (never waitpid(-1), never ProcessBuilder), killed with SIGKILL if still running at close.
 */
public final class SpawnedChild implements AutoCloseable {
    static final POSIX POSIX = POSIXFactory.getNativePOSIX();
    private static final int WNOHANG = 1;
    private static final int SIGKILL = 9;
    private static final int O_WRONLY = 1;
    private static final int O_CREAT = 0x40;
    private static final int O_APPEND = 0x400;

    private final long pid;
    private Integer status;

    private SpawnedChild(long pid) {
        this.pid = pid;
    }

    /**
     * Spawns {@code argv} with {@code env} added to a minimal environment (PATH, HOME); stdout and stderr go
     * to {@code log} (appended), so children never write into the test JVM's own streams.
     */
    public static SpawnedChild spawn(List<String> argv, Map<String, String> env, Path log) {
        return spawn(argv, env, List.of(SpawnFileAction.open(log.toString(), 1, O_WRONLY | O_CREAT | O_APPEND, 0644),
                SpawnFileAction.open(log.toString(), 2, O_WRONLY | O_CREAT | O_APPEND, 0644)));
    }

    public static SpawnedChild spawn(List<String> argv, Map<String, String> env, List<SpawnFileAction> fileActions) {
        Map<String, String> all = new TreeMap<>();
        for (String name : List.of("PATH", "HOME", "LANG")) {
            String value = System.getenv(name);
            if (value != null) {
                all.put(name, value);
            }
        }
        all.putAll(env);
        List<String> envp = new ArrayList<>();
        all.forEach((k, v) -> envp.add(k + "=" + v));
        long pid = POSIX.posix_spawnp(argv.get(0), fileActions, argv, envp);
        if (pid <= 0) {
            throw new IllegalStateException("posix_spawnp failed: argv=" + argv + " errno=" + POSIX.errno());
        }
        return new SpawnedChild(pid);
    }

    public long pid() {
        return pid;
    }

    /** The exit status (exit code, or 128 + signal) if the child ended within {@code timeout}, else null. */
    public Integer awaitExit(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long sleepMicros = 50;
        while (status == null) {
            int[] raw = new int[1];
            int got = POSIX.waitpid(pid, raw, WNOHANG);
            if (got == pid) {
                int signal = raw[0] & 0x7f;
                status = signal == 0 ? (raw[0] >> 8) & 0xff : 128 + signal;
                break;
            }
            if (got < 0) {
                throw new IllegalStateException("waitpid failed: pid=" + pid + " errno=" + POSIX.errno());
            }
            if (System.nanoTime() - deadline >= 0) {
                return null;
            }
            java.util.concurrent.locks.LockSupport.parkNanos(sleepMicros * 1000);
            sleepMicros = Math.min(5_000, sleepMicros * 2);
        }
        return status;
    }

    public boolean exited() {
        return awaitExit(Duration.ZERO) != null;
    }

    /** SIGKILL and reap; returns the status. */
    public int kill() {
        if (status == null) {
            POSIX.kill(pid, SIGKILL);
            awaitExit(Duration.ofSeconds(30));
        }
        return status;
    }

    @Override
    public void close() {
        if (status == null) {
            kill();
        }
    }
}
