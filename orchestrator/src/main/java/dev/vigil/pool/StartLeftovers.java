package dev.vigil.pool;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The files and directories an orchestrator's start may create (the journal dir, the mailbox map, the owner lock, ...),
 * each noted as absent or not before the start: a start that fails removes the ones it created, so that a failed
 * start (e.g. on a full disk) leaves nothing behind, and nothing that was there before is touched.
 */
final class StartLeftovers {
    private final List<Path> absentBefore;

    private StartLeftovers(List<Path> absentBefore) {
        this.absentBefore = absentBefore;
    }

    static StartLeftovers note(Path... paths) {
        return new StartLeftovers(Stream.of(paths).filter(p -> !Files.exists(p)).toList());
    }

    /** Removes each path that did not exist before the start (a directory with what is in it); quietly, at most. */
    void removeCreated() {
        for (Path p : absentBefore) {
            try (Stream<Path> all = Files.isDirectory(p) ? Files.walk(p) : Stream.of(p)) {
                for (Path q : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(q);
                }
            } catch (IOException | java.io.UncheckedIOException left) {
                // the start failed already and says why; what cannot be removed stays
            }
        }
    }
}
