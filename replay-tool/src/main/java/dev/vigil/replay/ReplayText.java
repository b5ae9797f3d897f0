package dev.vigil.replay;

import java.util.Locale;

/** How the replay tool formats what it prints. */
public final class ReplayText {
    /**
     * The locale of every {@code printf}/{@code String.format}: Locale.US, whose digits, decimal point and minus sign
     * are Locale.ROOT's. java.util.Formatter takes a fast path for it, where for any other locale it looks the
     * DecimalFormatSymbols up through the locale providers (CLDR's resource bundles, ~95 classes initialised): 10-15 ms
     * of {@code show}'s first printf at load 12, against 2-3 ms.
     */
    public static final Locale NUMBERS = Locale.US;

    private ReplayText() {
    }

    /**
     * The line {@code closes} and {@code audit} print where a journal begins fresh because the one before it was
     * damaged and set aside ({@link dev.vigil.journal.JournalSetAside}): where the older history is, and how to read it.
     */
    public static String setAside(dev.vigil.journal.JournalSetAside e) {
        return "journal begins fresh here: the journal before it was damaged (" + e.damage() + ") and set aside as " + e.setAsideDir() + "; the older history is there (vigil-replay audit "
                + e.setAsideDir() + " reads it up to the damage" + (e.lastGoodIndex() < 0 ? "" : ", last good index=0x"
                + Long.toHexString(e.lastGoodIndex())) + ")";
    }

    /** {@link #setAside} as a JSON line ({@code --json}). */
    public static String setAsideJson(dev.vigil.journal.JournalSetAside e) {
        return dev.vigil.journal.JsonEvents.mapper().createObjectNode().put("journalSetAside", e.setAsideDir())
                .put("file", e.file()).put("damageIndex", e.damageIndex()).put("lastGoodIndex", e.lastGoodIndex())
                .put("damage", e.damage()).toString();
    }
}
