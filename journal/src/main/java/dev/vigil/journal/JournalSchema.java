package dev.vigil.journal;

/** The journal's binary schema: one version number, written in every event header. */
public final class JournalSchema {
    /** Bumped whenever an event kind is added or an event gains a field. */
    public static final int VERSION = 2;

    /** Marker file that makes a Chronicle Queue directory a Vigil journal. */
    public static final String MARKER_FILE = "vigil-journal.properties";

    /** Sub-directory (a small Chronicle Queue of its own) holding the close index. */
    public static final String CLOSE_INDEX_DIR = "close-index";

    private JournalSchema() {
    }
}
