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

    public static DemoBehaviour fromEnv(Map<String, String> env) {
        return new DemoBehaviour(
                Long.parseLong(env.getOrDefault(DELAY_MICROS, "0").trim()),
                flag(env, GATE, false),
                Long.parseLong(env.getOrDefault(TEARDOWN_MILLIS, "0").trim()),
                flag(env, TEARDOWN_BEAT, true),
                flag(env, IGNORE_SHUTDOWN, false),
                Integer.parseInt(env.getOrDefault(EXIT_CODE, "0").trim()),
                flag(env, FAIL_INIT, false));
    }

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

    private static boolean flag(Map<String, String> env, String name, boolean fallback) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        String v = value.trim();
        return v.equals("1") || v.equalsIgnoreCase("true") || v.equalsIgnoreCase("yes");
    }
}
