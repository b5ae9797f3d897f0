package dev.vigil.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File helpers for tests and benchmarks (the journal's test jar: every module's tests have it). */
public final class TestFiles {
    private TestFiles() {
    }

    /**
     * A new temporary directory, deleted with everything in it when the JVM exits (a benchmark's journals and mailbox
     * maps: the start, scale and idle benches left 36-190 MB in /tmp per run).
     */
    public static Path tempTreeDeletedAtExit(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "delete-" + dir.getFileName()));
        return dir;
    }

    /** Deletes {@code dir} and everything below it; nothing when it does not exist. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
