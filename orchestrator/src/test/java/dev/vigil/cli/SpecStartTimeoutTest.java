package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A spec's {@code pools[].start.timeoutMs} is the bound the pool's start gives each child: a mailbox-exec child that
 * never attaches (a real {@code sleep}) fails the start within the spec's 1.5 s, named, and is closed. Before, a spec
 * could not set it and the start waited the Java API's 30 s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpecStartTimeoutTest {
    @TempDir
    Path tmp;

    @Test
    void aChildThatNeverBecomesReadyFailsTheStartWithinTheSpecsTimeoutNamed() throws Exception {
        RunSpec spec = SpecReader.validate("slow", new ObjectMapper().readTree("""
                {"journalDir": "%s", "close": {"windowMs": 300, "graceMs": 200},
                 "pools": [{"id": "slow", "start": {"timeoutMs": 1500},
                            "groups": [{"name": "mute", "kind": "mailbox-exec", "command": ["sleep", "600"], "children": 1}]}]}
                """.formatted(tmp.resolve("journal"))));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        long t0 = System.nanoTime();
        int status = new PoolRunner(spec, RunHooks.NONE, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(PoolRunner.CLOSE_FAILED, status, text);
        assertTrue(text.matches("(?s).*start failed: pool=slow .*group=mute child=0 pid=\\d+ not ready within 1500 ms of its spawn.*"),
                text);
        assertTrue(tookMs < 20_000, "the run took " + tookMs + " ms, not within the spec's 1.5 s and its rollback:\n" + text);
    }
}
