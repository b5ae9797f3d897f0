package dev.vigil.replay;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** File-level handling of journal directories in tests: compact copies, the cycle files. */
final class JournalFiles {
    private JournalFiles() {
    }

    /**
     * Copies a journal directory, cutting each Chronicle cycle file (an 80 MiB sparse
     * preallocation) down to the bytes in use plus a page: read-only readers accept it, and a
     * committed fixture stays small.
     */
    static void copyCompact(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else if (f.getFileName().toString().endsWith(".cq4")) {
                    long used = usedLength(f);
                    try (RandomAccessFile in = new RandomAccessFile(f.toFile(), "r");
                            RandomAccessFile out = new RandomAccessFile(target.toFile(), "rw")) {
                        byte[] buf = new byte[(int) used];
                        in.readFully(buf);
                        out.write(buf);
                        out.setLength((used / 4096 + 2) * 4096);
                    }
                } else {
                    Files.copy(f, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Offset just past the last non-zero byte. */
    static long usedLength(Path f) throws IOException {
        byte[] all = Files.readAllBytes(f);
        int n = all.length;
        while (n > 0 && all[n - 1] == 0) {
            n--;
        }
        return n;
    }

    /** The event cycle files of a journal (not the close index's). */
    static List<Path> cycleFiles(Path journal) {
        try (Stream<Path> files = Files.list(journal)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".cq4")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
