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
    /**
     * The longest pool id or group name (UTF-8 bytes) a child log can be named after: {@code <pool>/} and
     * {@code <group>-<index>.err.<keep>} must each fit a file name (255 bytes on Linux file systems).
     */
    public static final int MAX_NAME_BYTES = 200;

    /**
     * A pool id or group name as the file name its children's logs go under: '/' and control characters become '_',
     * and "." or ".." get a leading '_'. So two names can share one ("a/b" and "a_b"): the spec reader refuses such
     * pairs ({@link #sameFiles}), whose children would write into the same files and read each other's stderr tails.
     */
    public static String fileName(String name) {
        String s = name.replaceAll("[/\\p{Cntrl}]", "_");
        return s.equals(".") || s.equals("..") ? "_" + s : s;
    }

    /**
     * Records {@code name} under its {@link #fileName}; null when no earlier name in {@code seen} had that file name,
     * else what is wrong, on one line: a duplicate, or two names whose children would write into the same log files
     * and read each other's stderr tails ("a/b" and "a_b"). The spec reader (pool ids, group names) and the
     * orchestrator (ids of its open pools) both check so.
     */
    public static String sameFiles(java.util.Map<String, String> seen, String name, String what) {
        String fileName = fileName(name);
        String earlier = seen.putIfAbsent(fileName, name);
        if (earlier == null) {
            return null;
        }
        return earlier.equals(name) ? "duplicate " + what + " '" + escapeControls(name) + "'"
                : "'" + escapeControls(name) + "' and the " + what + " '" + escapeControls(earlier)
                        + "' name the same child log files ('" + fileName + "': '/' and control characters become '_');"
                        + " rename one";
    }

    /** {@code name} with its control characters as {@code \\uXXXX}: a problem is one line. */
    public static String escapeControls(String name) {
        StringBuilder shown = new StringBuilder();
        name.codePoints().forEach(c -> shown.append(Character.isISOControl(c)
                ? String.format(java.util.Locale.ROOT, "\\u%04x", c) : Character.toString(c)));
        return shown.toString();
    }

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
     * Where a log file stood before a child began to write it (its identity and size): the child's tail is what
     * came after. Files are appended to, so without it a child's tail would begin with an earlier run's, or an
     * earlier incarnation's, last lines.
     */
    public record Mark(Object fileKey, long size) {
        /** No file yet: everything written to it is the child's. */
        static final Mark NONE = new Mark(null, 0);

        /** {@code file} as it stands now. */
        public static Mark of(Path file) {
            try {
                java.nio.file.attribute.BasicFileAttributes a = java.nio.file.Files.readAttributes(file,
                        java.nio.file.attribute.BasicFileAttributes.class);
                return a.fileKey() == null ? NONE : new Mark(a.fileKey(), a.size());
            } catch (java.io.IOException | RuntimeException e) {
                return NONE;
            }
        }

        /** Where the child's part of {@code file} begins (0 for a file created, or truncated, after the mark). */
        long from(Path file) {
            if (fileKey == null) {
                return 0;
            }
            Mark now = of(file);
            return fileKey.equals(now.fileKey) && now.size >= size ? size : 0;
        }
    }

    /**
     * The last whole lines (at most {@value #TAIL_LINES}, from at most the last {@value #TAIL_BYTES} bytes) that the
     * child written since {@code since} (taken before its spawn) wrote to a log file; when the file was rotated since
     * and holds less, the end of {@code file.1} comes first. Null when there is nothing to show (no file, nothing
     * written since, unreadable). One bounded read of a regular file: never waits on a writer.
     */
    public static String tail(Path file, Mark since) {
        Piece current = readEnd(file, since.from(file), TAIL_BYTES);
        Path rotated = file.resolveSibling(file.getFileName() + ".1");
        // file.1 holds lines of the child only when the file it began to write was rotated since the mark
        boolean rotatedSince = since.fileKey() == null || !since.fileKey().equals(Mark.of(file).fileKey());
        Piece before = current.text().length() >= TAIL_BYTES || !rotatedSince ? Piece.EMPTY
                : readEnd(rotated, since.from(rotated), TAIL_BYTES - current.text().length());
        String text = before.text() + current.text();
        if (text.isBlank()) {
            return null;
        }
        boolean cut = before.text().isEmpty() ? current.cut() : before.cut();
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

    /** What one bounded read of a file's end gave, and whether the bound cut into the child's part of the file. */
    private record Piece(String text, boolean cut) {
        static final Piece EMPTY = new Piece("", false);
    }

    /** The last at most {@code bytes} of {@code file} at or after offset {@code from}. */
    private static Piece readEnd(Path file, long from, int bytes) {
        if (bytes <= 0) {
            return Piece.EMPTY;
        }
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.READ)) {
            long size = ch.size();
            int n = (int) Math.max(0, Math.min(size - from, bytes));
            java.nio.ByteBuffer buf = java.nio.ByteBuffer.allocate(n);
            long at = size - n;
            while (buf.hasRemaining()) {
                int r = ch.read(buf, at + buf.position());
                if (r < 0) {
                    break;
                }
            }
            return new Piece(new String(buf.array(), 0, buf.position(), java.nio.charset.StandardCharsets.UTF_8), at > from);
        } catch (java.io.IOException | RuntimeException e) {
            return Piece.EMPTY;
        }
    }

    /** The most one stream takes on disk: the current file and {@code keep} rotated ones, each at most maxBytes. */
    public long capBytes() {
        return maxBytes * (keep + 1);
    }
}
