package dev.vigil.spawn;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * What exec takes (execve(2), "Limits on size of arguments and environment"): each argument and each
 * {@code NAME=value} at most {@link #MAX_ARG_STRLEN} bytes with its NUL, all of them together (with a pointer each) at
 * most a quarter of the stack limit (ARG_MAX). Beyond either, exec fails with E2BIG.
 */
public final class ExecLimits {
    /** Linux's limit on one argument or environment string, its NUL included (32 pages of 4 KiB). */
    public static final int MAX_ARG_STRLEN = 32 * 4096;

    /** Linux's E2BIG: "Argument list too long". */
    public static final int E2BIG = 7;

    private ExecLimits() {
    }

    /** Null when exec takes {@code s} as one argument or variable ({@code NAME=value}); else why not, in words. */
    public static String whyTooLong(String s) {
        long bytes = s.getBytes(StandardCharsets.UTF_8).length + 1L;
        return bytes <= MAX_ARG_STRLEN ? null : "is " + bytes + " bytes with its NUL, more than the " + MAX_ARG_STRLEN
                + " one exec argument or variable may be (MAX_ARG_STRLEN): exec would fail with E2BIG";
    }

    /** For an E2BIG from exec: how much was asked, e.g. {@code argv 3000030 bytes in 31 strings, environment ...}. */
    public static String describe(List<String> argv, Map<String, String> environment) {
        long argBytes = 0;
        long longest = 0;
        for (String a : argv) {
            long b = a.getBytes(StandardCharsets.UTF_8).length + 1L;
            argBytes += b;
            longest = Math.max(longest, b);
        }
        Map<String, String> env = environment == null ? System.getenv() : environment;
        long envBytes = 0;
        for (Map.Entry<String, String> e : env.entrySet()) {
            long b = (e.getKey() + "=" + e.getValue()).getBytes(StandardCharsets.UTF_8).length + 1L;
            envBytes += b;
            longest = Math.max(longest, b);
        }
        return "the arguments and environment are too long for exec (E2BIG): argv " + argBytes + " bytes in "
                + argv.size() + " string(s), environment " + envBytes + " bytes in " + env.size() + " variable(s), the "
                + "longest " + longest + " bytes (one may be at most " + MAX_ARG_STRLEN + ", all together at most "
                + "ARG_MAX, a quarter of the stack limit: `getconf ARG_MAX`)";
    }
}
