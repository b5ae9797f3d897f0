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
}
