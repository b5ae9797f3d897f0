package dev.vigil.journal;

/**
 * The journal's binary schema. The directory's marker carries {@link #VERSION}; each event body
 * carries its own kind's layout version ({@link EventType#version()}) and a CRC32C.
 */
public final class JournalSchema {
    /**
     * The journal format as a whole, written into the marker file. 1: event bodies without a
     * checksum, one version for all kinds. 2: every body checksummed (CRC32C), a layout version
     * per kind. Bumped only when the envelope of every event changes, not when a kind gains a field.
     */
    public static final int VERSION = 2;

    /** Marker file that makes a Chronicle Queue directory a Vigil journal. */
    public static final String MARKER_FILE = "vigil-journal.properties";

    /** Sub-directory (a small Chronicle Queue of its own) holding the close index. */
    public static final String CLOSE_INDEX_DIR = "close-index";

    private JournalSchema() {
    }
}
