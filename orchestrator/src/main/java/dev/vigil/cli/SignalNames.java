package dev.vigil.cli;

import jnr.constants.platform.Signal;

/**
 * Signal names as users write them in a spec ({@code TERM}, {@code SIGTERM}, {@code 15}), and the real-time ones as
 * systemd's {@code KillSignal=} and {@code kill -l} write them ({@code SIGRTMIN+3}, {@code RTMAX-1}).
 */
final class SignalNames {
    /** glibc's SIGRTMIN (the kernel's 32 and 33 are kept by the C library's threads) and the kernel's SIGRTMAX. */
    private static final int RTMIN = 34;
    private static final int RTMAX = 64;
    private static final java.util.regex.Pattern REAL_TIME =
            java.util.regex.Pattern.compile("(?:SIG)?RT(MIN|MAX)(?:([+-])(\\d{1,2}))?");

    private SignalNames() {
    }

    /** The signal number, or -1 when {@code name} names no signal. */
    static int number(String name) {
        String n = name.trim().toUpperCase(java.util.Locale.ROOT);
        java.util.regex.Matcher rt = REAL_TIME.matcher(n);
        if (rt.matches()) {
            boolean fromMin = rt.group(1).equals("MIN");
            int offset = rt.group(3) == null ? 0 : Integer.parseInt(rt.group(3));
            if (offset != 0 && rt.group(2).equals(fromMin ? "-" : "+")) {
                return -1; // RTMIN-1, RTMAX+1: outside the real-time range
            }
            int v = fromMin ? RTMIN + offset : RTMAX - offset;
            return v >= RTMIN && v <= RTMAX ? v : -1;
        }
        if (n.chars().allMatch(Character::isDigit) && !n.isEmpty()) {
            // at most two digits: Linux has signals 1..64, and a longer number would overflow the parse
            int v = n.length() <= 2 ? Integer.parseInt(n) : -1;
            return v > 0 && v < 65 ? v : -1;
        }
        try {
            Signal s = Signal.valueOf(n.startsWith("SIG") ? n : "SIG" + n);
            return s.defined() ? s.intValue() : -1;
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }
}
