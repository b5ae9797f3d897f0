package dev.vigil.cli;

import jnr.constants.platform.Signal;

/** Signal names as users write them in a spec ({@code TERM}, {@code SIGTERM}, {@code 15}). */
final class SignalNames {
    private SignalNames() {
    }

    /** The signal number, or -1 when {@code name} names no signal. */
    static int number(String name) {
        String n = name.trim().toUpperCase(java.util.Locale.ROOT);
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
