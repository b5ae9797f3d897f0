package dev.vigil.journal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.stream.Stream;

import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

/**
 * Where a journal lives: a Chronicle Queue directory (default roll cycle) plus a marker file and
 * the close index. Opening for reading validates first, so that a wrong path gives a clear error
 * instead of an empty queue being created.
 */
public final class JournalDirectory {

    /** The roll cycle every journal is written with: Chronicle's default (one file per UTC day), which the writer does not change. */
    public static final RollCycle ROLL_CYCLE = RollCycles.FAST_DAILY;

    private JournalDirectory() {
    }

    /** Opens (creating if needed) the journal in {@code dir} for appending, with Chronicle's clock. */
    static SingleChronicleQueue openForAppend(Path dir) {
        return openForAppend(dir, net.openhft.chronicle.core.time.SystemTimeProvider.INSTANCE);
    }

    /** Opens (creating if needed) the journal in {@code dir} for appending; {@code clock} decides each excerpt's cycle. */
    static SingleChronicleQueue openForAppend(Path dir, net.openhft.chronicle.core.time.TimeProvider clock) {
        try {
            Files.createDirectories(dir);
            Path marker = dir.resolve(JournalSchema.MARKER_FILE);
            if (!Files.exists(marker)) {
                writeMarker(marker);
            } else {
                checkMarker(dir);
            }
        } catch (IOException e) {
            throw new JournalException("cannot create journal dir=" + dir + ": " + JournalException.plain(e), e);
        }
        return SingleChronicleQueueBuilder.binary(dir.toFile()).timeProvider(clock).build();
    }

    static SingleChronicleQueue openCloseIndexForAppend(Path dir) {
        return SingleChronicleQueueBuilder.binary(dir.resolve(JournalSchema.CLOSE_INDEX_DIR).toFile()).build();
    }

    /**
     * Opens an existing journal read-only. Fails with a clear message when {@code dir} is missing,
     * is a file, is not a Vigil journal, or was written by a newer schema.
     */
    static SingleChronicleQueue openForRead(Path dir) {
        validate(dir);
        return SingleChronicleQueueBuilder.binary(dir.toFile()).readOnly(true).build();
    }

    /** The close index queue, or null when the journal has none yet. */
    static SingleChronicleQueue openCloseIndexForRead(Path dir) {
        Path index = dir.resolve(JournalSchema.CLOSE_INDEX_DIR);
        if (!hasQueueFiles(index)) {
            return null;
        }
        return SingleChronicleQueueBuilder.binary(index.toFile()).readOnly(true).build();
    }

    /** Throws {@link JournalException} unless {@code dir} holds a journal this reader can read. */
    public static void validate(Path dir) {
        if (!Files.exists(dir)) {
            if (!Files.notExists(dir)) { // neither: stat failed, e.g. a parent directory that may not be searched
                throw new JournalException("journal dir=" + dir + " cannot be read: " + statFailure(dir));
            }
            throw new JournalException("journal dir=" + dir + " does not exist");
        }
        if (!Files.isDirectory(dir)) {
            throw new JournalException("journal dir=" + dir + " is a file, not a journal directory");
        }
        Path marker = dir.resolve(JournalSchema.MARKER_FILE);
        if (!Files.exists(marker)) {
            if (!Files.notExists(marker)) { // the directory may not be searched (mode 000): not "no marker"
                throw new JournalException("journal dir=" + dir + " cannot be read: " + statFailure(marker));
            }
            throw new JournalException("dir=" + dir + " is not a Vigil journal (no " + JournalSchema.MARKER_FILE + ")");
        }
        checkMarker(dir);
        // No cycle file yet is a journal whose writer has not appended: it reads as empty (and a
        // follower sees the first events when they come), so it is not an error.
    }

    /**
     * Moves the damaged journal {@code dir} (the whole directory: its cycle files, close index and marker, so that it
     * stays a journal vigil-replay reads as before, up to its damage) aside to {@code <dir>.damaged-<UTC time>} beside
     * it, and returns where it went. Never overwrites: a name taken (an earlier set-aside the same second) takes the
     * next free one, {@code -2} to {@code -}{@link #SET_ASIDE_NAMES}; all of them taken fails. Only the dir's owner may
     * call it (no writer has it open). Fails with a {@link JournalException} of one line naming both paths and why (a
     * read-only parent, every name taken, no space): nothing was moved then.
     */
    public static Path setAside(Path dir, long epochMillis) {
        Path real = JournalOwner.realPath(dir);
        String stamp = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
                .withZone(java.time.ZoneOffset.UTC).format(java.time.Instant.ofEpochMilli(epochMillis));
        Path first = real.resolveSibling(real.getFileName() + SET_ASIDE_INFIX + stamp);
        for (int n = 1; n <= SET_ASIDE_NAMES; n++) {
            Path target = n == 1 ? first : first.resolveSibling(first.getFileName() + "-" + n);
            try {
                // no REPLACE_EXISTING: a taken name fails (Files.move checks it, then rename(2) moves the directory whole)
                Files.move(real, target);
                return target;
            } catch (FileAlreadyExistsException taken) {
                // an earlier set-aside (or anything else) has it: the next name
            } catch (IOException | RuntimeException e) {
                throw new JournalException("the damaged journal dir=" + real + " cannot be set aside as " + target + ": "
                        + JournalException.reason(e) + "; nothing started", e);
            }
        }
        throw new JournalException("the damaged journal dir=" + real + " cannot be set aside: " + first + " and -2 to -"
                + SET_ASIDE_NAMES + " exist already (an earlier set-aside is never overwritten); nothing started, start again");
    }

    /** How many names {@link #setAside} tries for one second: {@code <dir>.damaged-<UTC time>}, then -2 to -this. */
    public static final int SET_ASIDE_NAMES = 100;

    /** What follows the journal dir's name in the name of a damaged journal set aside ({@link #setAside}). */
    public static final String SET_ASIDE_INFIX = ".damaged-";

    /** Why {@code path} cannot be looked at, e.g. "/j/vigil-journal.properties: permission denied". */
    private static String statFailure(Path path) {
        try {
            Files.readAttributes(path, java.nio.file.attribute.BasicFileAttributes.class);
            return path + ": cannot be looked at";
        } catch (IOException e) {
            return JournalException.plain(e);
        }
    }

    private static boolean hasQueueFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.anyMatch(p -> p.getFileName().toString().endsWith(".cq4"));
        } catch (IOException e) {
            throw new JournalException("cannot list journal dir=" + dir + ": " + e.getMessage(), e);
        }
    }

    private static void writeMarker(Path marker) throws IOException {
        Properties p = new Properties();
        p.setProperty("format", "vigil-journal");
        p.setProperty("schemaVersion", Integer.toString(JournalSchema.VERSION));
        Path tmp = Files.createTempFile(marker.getParent(), ".marker", ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            p.store(out, "Vigil journal: a Chronicle Queue of binary events, see dev.vigil.journal.EventCodec");
        }
        try {
            Files.move(tmp, marker, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException raced) {
            Files.deleteIfExists(tmp);
        }
    }

    private static String versionsRead() {
        return "this reader reads schemaVersion 1 to " + JournalSchema.VERSION;
    }

    /** The schema version in the journal's marker (1 or later); the journal must have been validated. */
    public static int markerSchemaVersion(Path dir) {
        return checkMarker(dir);
    }

    private static int checkMarker(Path dir) {
        Path marker = dir.resolve(JournalSchema.MARKER_FILE);
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(marker)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            throw new JournalException("journal marker file=" + marker + " cannot be read: " + JournalException.reason(e), e);
        }
        if (!"vigil-journal".equals(p.getProperty("format"))) {
            throw new JournalException("dir=" + dir + " is not a Vigil journal (marker file=" + marker + " has format="
                    + p.getProperty("format") + ")");
        }
        int version;
        try {
            version = Integer.parseInt(p.getProperty("schemaVersion", "?"));
        } catch (NumberFormatException e) {
            throw new JournalException("journal marker file=" + marker + " has a bad schemaVersion="
                    + p.getProperty("schemaVersion") + " (" + versionsRead() + ")", e);
        }
        if (version < 1) { // no journal was ever written with one: a damaged or hand-made marker
            throw new JournalException("journal marker file=" + marker + " has schemaVersion=" + version + ", which no"
                    + " journal has (" + versionsRead() + ")");
        }
        if (version > JournalSchema.VERSION) {
            throw new JournalException("journal dir=" + dir + " has schema version=" + version
                    + ", newer than this reader's version=" + JournalSchema.VERSION);
        }
        return version;
    }
}
