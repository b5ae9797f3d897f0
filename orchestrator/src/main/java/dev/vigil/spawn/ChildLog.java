package dev.vigil.spawn;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A child's own log files: its stdout and its stderr each go to a file of their own, written by a log writer the
 * spawn shim starts (never by an orchestrator thread), rotated at {@code maxBytes} (file -> file.1 -> ... ->
 * file.{@code keep}; keep 0 truncates the file instead), so each stream takes at most
 * {@code maxBytes * (keep + 1)} on disk. Files are appended to: a child started again under the same name continues
 * them. docs/SPAWNING.md, "Children's output".
 */
public record ChildLog(Path stdout, Path stderr, long maxBytes, int keep) {
    /** Default cap of one file: 1 MiB. */
    public static final long DEFAULT_MAX_BYTES = 1L << 20;
    /** Default number of rotated files kept beside the current one. */
    public static final int DEFAULT_KEEP = 3;
    /** The shim takes a size up to INT_MAX and at most 99 rotated files. */
    public static final long MAX_MAX_BYTES = Integer.MAX_VALUE;
    public static final int MAX_KEEP = 99;

    public ChildLog {
        Objects.requireNonNull(stdout, "stdout");
        Objects.requireNonNull(stderr, "stderr");
        if (maxBytes < 1 || maxBytes > MAX_MAX_BYTES) {
            throw new IllegalArgumentException("child log maxBytes=" + maxBytes + " must be in 1.." + MAX_MAX_BYTES);
        }
        if (keep < 0 || keep > MAX_KEEP) {
            throw new IllegalArgumentException("child log keep=" + keep + " must be in 0.." + MAX_KEEP);
        }
    }

    /** How much of a log file's end {@link #tail} reads at most. */
    public static final int TAIL_BYTES = 4096;
    /** How many lines {@link #tail} keeps at most. */
    public static final int TAIL_LINES = 20;

    /**
     * The last whole lines (at most {@value #TAIL_LINES}, from at most the last {@value #TAIL_BYTES} bytes) of a log
     * file; when the file was just rotated and holds less, the end of {@code file.1} comes first. Null when there is
     * nothing to show (no file, empty, unreadable). One bounded read of a regular file: never waits on a writer.
     */
    public static String tail(Path file) {
        String current = readEnd(file, TAIL_BYTES);
        String before = current != null && current.length() >= TAIL_BYTES ? null
                : readEnd(file.resolveSibling(file.getFileName() + ".1"), TAIL_BYTES - (current == null ? 0 : current.length()));
        String text = (before == null ? "" : before) + (current == null ? "" : current);
        if (text.isBlank()) {
            return null;
        }
        boolean cut = (current != null && current.length() >= TAIL_BYTES) || before != null;
        String[] lines = text.split("\n", -1);
        int end = lines.length;
        while (end > 0 && lines[end - 1].isEmpty()) {
            end--;
        }
        int start = Math.max(cut ? 1 : 0, end - TAIL_LINES); // a line cut by the byte bound is dropped
        if (start >= end) {
            start = Math.max(0, end - 1);
        }
        return String.join("\n", java.util.Arrays.asList(lines).subList(start, end));
    }

    private static String readEnd(Path file, int bytes) {
        if (bytes <= 0) {
            return null;
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ)) {
            long size = ch.size();
            int n = (int) Math.min(size, bytes);
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(n);
            long at = size - n;
            while (buf.hasRemaining()) {
                int r = ch.read(buf, at + buf.position());
                if (r < 0) {
                    break;
                }
            }
            return n == 0 ? null : new String(buf.array(), 0, buf.position(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** The most one stream takes on disk: the current file and {@code keep} rotated ones, each at most maxBytes. */
    public long capBytes() {
        return maxBytes * (keep + 1);
    }
}
