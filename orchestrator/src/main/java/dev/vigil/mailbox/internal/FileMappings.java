package dev.vigil.mailbox.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Translates an address inside this process's mappings of one file into a file offset, from
 * {@code /proc/self/maps} (Linux). Chronicle Map hands out entry addresses, children need file offsets;
 * the kernel's own mapping table answers that without reaching into Chronicle's internals.
 */
public final class FileMappings {
    private final Path file;
    private volatile List<long[]> ranges = List.of(); // {start, end, fileOffset}

    public FileMappings(Path file) throws IOException {
        this.file = file.toRealPath();
    }

    /** The file offset of {@code address}, or -1 if no mapping of the file covers it. */
    public long fileOffsetOf(long address) throws IOException {
        long offset = lookup(ranges, address);
        if (offset < 0) {
            ranges = read();
            offset = lookup(ranges, address);
        }
        return offset;
    }

    private static long lookup(List<long[]> ranges, long address) {
        for (long[] range : ranges) {
            if (Long.compareUnsigned(address, range[0]) >= 0 && Long.compareUnsigned(address, range[1]) < 0) {
                return range[2] + (address - range[0]);
            }
        }
        return -1;
    }

    private List<long[]> read() throws IOException {
        List<long[]> found = new ArrayList<>();
        String wanted = file.toString();
        for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
            // start-end perms offset dev inode path
            String[] fields = line.trim().split("\\s+", 6);
            if (fields.length < 6 || !fields[5].equals(wanted)) {
                continue;
            }
            String[] bounds = fields[0].split("-");
            found.add(new long[] {Long.parseUnsignedLong(bounds[0], 16), Long.parseUnsignedLong(bounds[1], 16), Long.parseUnsignedLong(fields[2], 16)});
        }
        return List.copyOf(found);
    }
}
