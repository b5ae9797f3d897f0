package dev.vigil.journal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Byte-level access to a written cycle file, for tests that damage a real journal at a known event. */
public final class CycleFileBytes {
    private CycleFileBytes() {
    }

    /** File position of each data excerpt's body, walking Chronicle's headers (metadata skipped). */
    public static long[] bodyPositions(Path cycle) throws IOException {
        byte[] all = Files.readAllBytes(cycle);
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(all).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        List<Long> out = new ArrayList<>();
        int pos = 0;
        while (pos + 4 <= all.length) {
            int header = b.getInt(pos);
            if (header == 0) {
                break;
            }
            int length = header & 0x3FFFFFFF;
            if ((header & 0x40000000) == 0) {
                out.add((long) pos + 4);
            }
            pos = (pos + 4 + length + 3) & ~3;
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** The (first) cycle file of a journal directory. */
    public static Path cycleFile(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
    }

    /** Flips {@code bit} of the byte at {@code at}. */
    public static void flip(Path file, long at, int bit) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ bit);
        }
    }
}
