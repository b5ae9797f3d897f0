package dev.vigil.pool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Finds every process of one test by an environment variable each of them inherits (VIGIL_TEST_MARK=uuid),
 * whatever its parent, session or process group: what a test must see to claim "nothing left".
 */
public final class MarkedProcesses {
    public static final String VARIABLE = "VIGIL_TEST_MARK";
    private final String mark;

    public MarkedProcesses() {
        this(UUID.randomUUID().toString());
    }

    /** The processes marked with {@code mark} by another process (a test's holder process, given the test's mark). */
    public MarkedProcesses(String mark) {
        this.mark = mark;
    }

    /** {@code VIGIL_TEST_MARK=<uuid>}, to add to a child's environment. */
    public String variableValue() {
        return mark;
    }

    /** Live (not zombie) processes carrying the mark. */
    public List<ProcessTree.Proc> alive() {
        byte[] needle = (VARIABLE + "=" + mark).getBytes(StandardCharsets.US_ASCII);
        List<ProcessTree.Proc> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path d : dirs) {
                byte[] env;
                try {
                    env = Files.readAllBytes(d.resolve("environ"));
                } catch (IOException gone) {
                    continue;
                }
                if (contains(env, needle)) {
                    ProcessTree.Proc p = ProcessTree.read(Integer.parseInt(d.getFileName().toString()));
                    if (p != null && p.state() != 'Z' && p.state() != 'X') {
                        out.add(p);
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc: " + e, e);
        }
        return out;
    }

    /** Waits up to {@code millis} for no marked process to be alive; returns those still alive. */
    public List<ProcessTree.Proc> awaitNone(long millis) throws InterruptedException {
        return awaitAlive(0, millis);
    }

    /**
     * Waits up to {@code millis} for exactly {@code count} marked processes to be alive; returns those alive at the
     * end. A process between fork and exec (a {@code setsid -f} daemon) can read as unmarked for a moment.
     */
    public List<ProcessTree.Proc> awaitAlive(int count, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        List<ProcessTree.Proc> now = alive();
        while (now.size() != count && System.nanoTime() < deadline) {
            Thread.sleep(10);
            now = alive();
        }
        return now;
    }

    /** Waits up to {@code millis} for at least {@code count} live marked processes named {@code comm}; returns how many there are. */
    public long awaitNamed(String comm, int count, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long now = named(comm);
        while (now < count && System.nanoTime() < deadline) {
            Thread.sleep(10);
            now = named(comm);
        }
        return now;
    }

    /** How many live marked processes are named {@code comm}. */
    public long named(String comm) {
        return alive().stream().filter(p -> p.comm().equals(comm)).count();
    }

    /** SIGKILLs every marked process still alive (a test's cleanup after showing a leak). */
    public void killAll() {
        for (ProcessTree.Proc p : alive()) {
            ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    private static boolean contains(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            if (i > 0 && hay[i - 1] != 0) {
                continue;
            }
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
