package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * ExecLimits' accounting against real execs: {@code /bin/true} with an environment that fills exec's room to the byte
 * runs, one byte more fails with E2BIG. (ProcessBuilder here only to ask the kernel: its helper execs the program
 * with exactly this argv and environment; no pool child is started so.)
 */
class ExecLimitsTest {
    private static final String PROGRAM = "/bin/true";

    @Test
    void theRoomExecGivesIsWhatTheKernelTakesToTheByte() throws Exception {
        long space = ExecLimits.space(ExecLimits.stackLimit());
        assertEquals(0, exec(environmentFilling(space)), "a environment filling the room to the byte");
        IOException e = assertThrows(IOException.class, () -> exec(environmentFilling(space + 1)));
        assertTrue(e.getMessage().contains("error=7"), e.getMessage());
    }

    @Test
    void theRoomIsAQuarterOfTheStackLimitBetween32PagesAnd6MiB() {
        assertEquals(2L << 20, ExecLimits.space(8L << 20));
        assertEquals(32 * 4096, ExecLimits.space(256 * 1024));
        assertEquals(6L << 20, ExecLimits.space(100_000_000));
        assertEquals(6L << 20, ExecLimits.space(-1));
    }

    /**
     * Variables of at most 100,000 bytes each whose strings, with {@link #PROGRAM} as argv and file name, and every
     * pointer, take exactly {@code total} bytes.
     */
    private static Map<String, String> environmentFilling(long total) {
        long left = total - 2 * ExecLimits.bytes(PROGRAM) - ExecLimits.POINTER; // argv[0], the file name, its pointer
        Map<String, String> env = new java.util.LinkedHashMap<>();
        for (int i = 0; left > 0; i++) {
            String name = String.format("V%04d", i);
            long overhead = name.length() + 2 + ExecLimits.POINTER; // '=', NUL, pointer
            long value = Math.min(100_000, left - overhead);
            if (value < 0) {
                throw new IllegalStateException("cannot fill the last " + left + " bytes");
            }
            if (left - overhead - value > 0 && left - overhead - value < 16) {
                value -= 16; // leave room for one more whole variable
            }
            env.put(name, "x".repeat((int) value));
            left -= overhead + value;
        }
        assertEquals(total, 2 * ExecLimits.bytes(PROGRAM) + ExecLimits.bytes(env)
                + (long) ExecLimits.POINTER * (1 + env.size()));
        return env;
    }

    private static int exec(Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(List.of(PROGRAM));
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "exited");
        return p.exitValue();
    }
}
