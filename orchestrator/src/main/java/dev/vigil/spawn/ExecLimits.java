package dev.vigil.spawn;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * What exec takes (execve(2), "Limits on size of arguments and environment"; fs/exec.c): each argument and each
 * {@code NAME=value} at most {@link #MAX_ARG_STRLEN} bytes with its NUL; all of them, with the file name once more and a
 * pointer for each argument and variable, at most {@link #space} bytes: a quarter of the stack limit (RLIMIT_STACK),
 * at least 32 pages, at most 6 MiB. Beyond either, exec fails with E2BIG. Checked on this kernel (6.18) by exec'ing
 * {@code /bin/true} with a growing environment: the largest accepted left 0 bytes of that sum, at stack limits 1 MiB,
 * 8 MiB, 100 MB and unlimited.
 */
public final class ExecLimits {
    /** Linux's limit on one argument or environment string, its NUL included (32 pages of 4 KiB). */
    public static final int MAX_ARG_STRLEN = 32 * 4096;

    /** Room for every string whatever the stack limit: Linux's ARG_MAX, 32 pages. */
    public static final long MIN_SPACE = 32 * 4096;

    /** Room for every string at most, whatever the stack limit: three quarters of _STK_LIM, 8 MiB (Linux 4.13+). */
    public static final long MAX_SPACE = 6L << 20;

    /** Each argument's and each variable's pointer (argv, envp), on a 64-bit kernel. */
    public static final int POINTER = Long.BYTES;

    /**
     * Room kept, when a spec is checked, for the strings a spawn adds to a child's own: the shim's path and options
     * (its parent's pid, cgroup, working directory, two log paths and their sizes) and the mailbox handoff variables
     * (the mailbox file's path, offsets, pool, group): six paths of PATH_MAX (4096) and 512 bytes more.
     */
    public static final long SPAWN_RESERVE = 6 * 4096 + 512;

    /** Linux's E2BIG: "Argument list too long". */
    public static final int E2BIG = 7;

    private ExecLimits() {
    }

    /** Null when exec takes {@code s} as one argument or variable ({@code NAME=value}); else why not, in words. */
    public static String whyTooLong(String s) {
        long bytes = bytes(s);
        return bytes <= MAX_ARG_STRLEN ? null : "is " + bytes + " bytes with its NUL, more than the " + MAX_ARG_STRLEN
                + " one exec argument or variable may be (MAX_ARG_STRLEN): exec would fail with E2BIG";
    }

    /** What exec copies of {@code s}: its UTF-8 bytes and a NUL. */
    public static long bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length + 1L;
    }

    /** What exec copies of variable {@code name}: {@code NAME=value} and a NUL. */
    public static long bytes(String name, String value) {
        return bytes(name) + bytes(value);
    }

    /** The bytes all of {@code env}'s variables take in exec, pointers not counted. */
    public static long bytes(Map<String, String> env) {
        long sum = 0;
        for (Map.Entry<String, String> e : env.entrySet()) {
            sum += bytes(e.getKey(), e.getValue());
        }
        return sum;
    }

    /** The bytes all of {@code strings} take in exec, pointers not counted. */
    public static long bytes(List<String> strings) {
        long sum = 0;
        for (String s : strings) {
            sum += bytes(s);
        }
        return sum;
    }

    /** The room exec gives all strings and pointers in a process whose stack limit is {@code stackLimit} (-1: none). */
    public static long space(long stackLimit) {
        return Math.max(MIN_SPACE, stackLimit < 0 ? MAX_SPACE : Math.min(MAX_SPACE, stackLimit / 4));
    }

    /**
     * This process's stack limit (RLIMIT_STACK, soft), which its children inherit: from /proc/self/limits, -1 when
     * unlimited; Linux's default 8 MiB when it cannot be read.
     */
    public static long stackLimit() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max stack size")) {
                    String soft = line.substring("Max stack size".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? -1 : Long.parseLong(soft);
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux's /proc: the default below
        }
        return 8L << 20;
    }

    /** The room exec gives here and why, e.g. {@code 2097152 (a quarter of the stack limit 8388608: ulimit -s)}. */
    public static String spaceHere() {
        long stack = stackLimit();
        long space = space(stack);
        String why = stack < 0 || space == MAX_SPACE ? "at most 6 MiB, whatever the stack limit"
                : space == MIN_SPACE ? "at least 32 pages, whatever the stack limit"
                : "a quarter of the stack limit " + stack + ": ulimit -s";
        return space + " bytes (" + why + ")";
    }

    /** For an E2BIG from exec: how much was asked, against what exec takes here. */
    public static String describe(List<String> argv, Map<String, String> environment) {
        long longest = 0;
        for (String a : argv) {
            longest = Math.max(longest, bytes(a));
        }
        Map<String, String> env = environment == null ? System.getenv() : environment;
        for (Map.Entry<String, String> e : env.entrySet()) {
            longest = Math.max(longest, bytes(e.getKey(), e.getValue()));
        }
        long argBytes = bytes(argv);
        long envBytes = bytes(env);
        long pointers = (long) POINTER * (argv.size() + env.size());
        long total = argBytes + envBytes + pointers + (argv.isEmpty() ? 0 : bytes(argv.get(0)));
        return "the arguments and environment are too long for exec (E2BIG): argv " + argBytes + " bytes in "
                + argv.size() + " string(s), environment " + envBytes + " bytes in " + env.size() + " variable(s), "
                + "pointers " + pointers + " bytes: " + total + " bytes with the file name, more than the "
                + spaceHere() + " exec takes, or one string longer than " + MAX_ARG_STRLEN + " (the longest is "
                + longest + ")";
    }
}
