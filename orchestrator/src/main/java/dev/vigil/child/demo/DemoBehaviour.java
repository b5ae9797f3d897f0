package dev.vigil.child.demo;

import java.util.Map;

/**
 * How a demo child behaves; the same settings (and names) drive the C demo child, as environment variables
 * or flags: {@code VIGIL_DEMO_DELAY_MICROS} / {@code --delay-us} (every command takes this long, not beating),
 * {@code VIGIL_DEMO_GATE=1} / {@code --gate} (every command blocks until the mailbox gate word is non-zero,
 * neither beating nor looking at shutdown: a wedged device call), {@code VIGIL_DEMO_TEARDOWN_MILLIS} /
 * {@code --teardown-ms} (finalization time), {@code VIGIL_DEMO_TEARDOWN_BEAT=0} / {@code --teardown-no-beat}
 * (finalize without beating), {@code VIGIL_DEMO_IGNORE_SHUTDOWN=1} / {@code --ignore-shutdown} (never look at
 * the shutdown request), {@code VIGIL_DEMO_EXIT_CODE} / {@code --exit-code} (status after shutdown),
 * {@code VIGIL_DEMO_FAIL_INIT=1} / {@code --fail-init} (report INIT_FAILED).
 */
public record DemoBehaviour(long delayMicros, boolean gate, long teardownMillis, boolean teardownBeats, boolean ignoreShutdown,
        int exitCode, boolean failInit) {

    public static final String DELAY_MICROS = "VIGIL_DEMO_DELAY_MICROS";
    public static final String GATE = "VIGIL_DEMO_GATE";
    public static final String TEARDOWN_MILLIS = "VIGIL_DEMO_TEARDOWN_MILLIS";
    public static final String TEARDOWN_BEAT = "VIGIL_DEMO_TEARDOWN_BEAT";
    public static final String IGNORE_SHUTDOWN = "VIGIL_DEMO_IGNORE_SHUTDOWN";
    public static final String EXIT_CODE = "VIGIL_DEMO_EXIT_CODE";
    public static final String FAIL_INIT = "VIGIL_DEMO_FAIL_INIT";

    public static final DemoBehaviour DEFAULT = new DemoBehaviour(0, false, 0, true, false, 0, false);

    /** Every setting's name, as a spec's group env or a child's environment carries it. */
    public static final java.util.List<String> NAMES = java.util.List.of(DELAY_MICROS, GATE, TEARDOWN_MILLIS, TEARDOWN_BEAT,
            IGNORE_SHUTDOWN, EXIT_CODE, FAIL_INIT);

    /**
     * The settings in {@code env}; an unset or empty one keeps its default. Throws IllegalArgumentException naming the
     * first setting that is not what {@link #whyNotSetting} says it must be. Before, {@code "200ms"} or {@code "-5"} was
     * cut or wrapped by the C child, refused with a bare NumberFormatException by the Java one, and a flag {@code "on"}
     * read as off.
     */
    public static DemoBehaviour fromEnv(Map<String, String> env) {
        return new DemoBehaviour(number(env, DELAY_MICROS, 0), flag(env, GATE, false), number(env, TEARDOWN_MILLIS, 0),
                flag(env, TEARDOWN_BEAT, true), flag(env, IGNORE_SHUTDOWN, false), (int) number(env, EXIT_CODE, 0),
                flag(env, FAIL_INIT, false));
    }

    /**
     * Null when {@code value} is a well-formed value of the setting {@code name} (an empty one means its default); else
     * why not: numbers are decimal digits (microseconds, milliseconds, an exit status 0..255), flags 1/0, true/false or
     * yes/no; a VIGIL_DEMO_ name not in {@link #NAMES} is unknown (a typo would otherwise be ignored).
     */
    public static String whyNotSetting(String name, String value) {
        if (value == null || value.isBlank()) {
            return NAMES.contains(name) ? null : unknown();
        }
        return switch (name) {
            case DELAY_MICROS -> whyNotNumber(value, Long.MAX_VALUE / 1000, "microseconds");
            case TEARDOWN_MILLIS -> whyNotNumber(value, Long.MAX_VALUE / 1_000_000, "milliseconds");
            case EXIT_CODE -> whyNotNumber(value, 255, "exit status");
            case GATE, TEARDOWN_BEAT, IGNORE_SHUTDOWN, FAIL_INIT -> FLAGS.containsKey(value.trim().toLowerCase(java.util.Locale.ROOT))
                    ? null : "not 1/0, true/false or yes/no: '" + value.trim() + "'";
            default -> unknown();
        };
    }

    private static String unknown() {
        return "unknown demo setting (known: " + String.join(", ", NAMES) + ")";
    }

    private static String whyNotNumber(String value, long max, String unit) {
        String v = value.trim();
        return v.matches("[0-9]{1,18}") && Long.parseLong(v) <= max ? null
                : "not a whole number (" + unit + ", 0.." + max + "): '" + value.trim() + "'";
    }

    private static final Map<String, Boolean> FLAGS = Map.of("1", true, "true", true, "yes", true, "0", false, "false", false,
            "no", false);

    /** These settings as environment variables (what a launcher passes to a Java or C demo child). */
    public Map<String, String> toEnv() {
        return Map.of(DELAY_MICROS, Long.toString(delayMicros), GATE, gate ? "1" : "0", TEARDOWN_MILLIS, Long.toString(teardownMillis),
                TEARDOWN_BEAT, teardownBeats ? "1" : "0", IGNORE_SHUTDOWN, ignoreShutdown ? "1" : "0", EXIT_CODE, Integer.toString(exitCode),
                FAIL_INIT, failInit ? "1" : "0");
    }

    public DemoBehaviour withDelayMicros(long micros) {
        return new DemoBehaviour(micros, gate, teardownMillis, teardownBeats, ignoreShutdown, exitCode, failInit);
    }

    public DemoBehaviour withGate(boolean on) {
        return new DemoBehaviour(delayMicros, on, teardownMillis, teardownBeats, ignoreShutdown, exitCode, failInit);
    }

    public DemoBehaviour withTeardown(long millis, boolean beats) {
        return new DemoBehaviour(delayMicros, gate, millis, beats, ignoreShutdown, exitCode, failInit);
    }

    public DemoBehaviour withIgnoreShutdown(boolean on) {
        return new DemoBehaviour(delayMicros, gate, teardownMillis, teardownBeats, on, exitCode, failInit);
    }

    public DemoBehaviour withExitCode(int code) {
        return new DemoBehaviour(delayMicros, gate, teardownMillis, teardownBeats, ignoreShutdown, code, failInit);
    }

    public DemoBehaviour withFailInit(boolean on) {
        return new DemoBehaviour(delayMicros, gate, teardownMillis, teardownBeats, ignoreShutdown, exitCode, on);
    }

    private static long number(Map<String, String> env, String name, long fallback) {
        String value = checked(env, name);
        return value == null || value.isBlank() ? fallback : Long.parseLong(value.trim());
    }

    private static boolean flag(Map<String, String> env, String name, boolean fallback) {
        String value = checked(env, name);
        return value == null || value.isBlank() ? fallback : FLAGS.get(value.trim().toLowerCase(java.util.Locale.ROOT));
    }

    private static String checked(Map<String, String> env, String name) {
        String value = env.get(name);
        String why = whyNotSetting(name, value);
        if (why != null) {
            throw new IllegalArgumentException(name + ": " + why);
        }
        return value;
    }
}
