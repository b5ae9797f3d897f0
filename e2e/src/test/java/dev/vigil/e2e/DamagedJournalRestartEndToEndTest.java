package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * As a user meets it: {@code bin/vigil run} SIGKILLed mid-close, 64 bytes among its journal's last events overwritten
 * (3691c02's probe), {@code bin/vigil run} again. The restart warns in one stderr line naming the set-aside dir, runs
 * and closes its pool in a fresh journal, and says so in its report's journal line; {@code vigil-replay closes} and
 * {@code audit} of the fresh journal name the set-aside dir; {@code export} of the set-aside dir prints every event
 * before the damage, then the damage, exit 2. Before, the restart refused, exit 1 ("move the journal dir aside").
 */
@Timeout(300)
class DamagedJournalRestartEndToEndTest {
    @TempDir
    Path work;

    @Test
    void aRestartOnAJournalDamagedAfterACrashWarnsOnceGoesOnInAFreshJournalAndTheReplayNamesBoth() throws Exception {
        Path journal = work.resolve("j");
        Path crashing = Files.writeString(work.resolve("crashing.json"), """
                {"journalDir": "j", "close": {"windowMs": 60000},
                 "pools": [{"id": "p", "groups": [
                     {"name": "chips", "kind": "c", "children": 2},
                     {"name": "stubborn", "kind": "exec", "command": ["/bin/sh", "-c", "trap '' TERM; while :; do sleep 1; done"],
                      "children": 1}]}]}
                """);
        Process first = Launchers.start(work, "vigil", "run", crashing.toString());
        try {
            awaitOutput(first, "closing 1 pool(s) at once", 60);
            Thread.sleep(300); // inside the close: the stubborn child holds it for its 60 s window
        } finally {
            first.destroyForcibly(); // bin/vigil execs its JVM: a SIGKILL of the orchestrator
            assertTrue(first.waitFor(10, TimeUnit.SECONDS));
        }
        awaitFile(work, "j-guardian-", 10); // its guardian ended the pool and wrote its record
        Path cycle;
        try (var files = Files.list(journal)) {
            cycle = files.filter(f -> f.getFileName().toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(cycle);
        int written = bytes.length;
        while (written > 0 && bytes[written - 1] == 0) {
            written--;
        }
        byte[] junk = new byte[64];
        Arrays.fill(junk, (byte) 0xff);
        try (FileChannel ch = FileChannel.open(cycle, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(junk), written - 200); // inside the last events, past the header and index
        }

        Path clean = Files.writeString(work.resolve("clean.json"), """
                {"journalDir": "j", "pools": [{"id": "p", "groups": [{"name": "chips", "kind": "c", "children": 2}]}]}
                """);
        Launchers.Result restart = Launchers.vigil(work, 120, "run", clean.toString());
        assertEquals(0, restart.exitCode(), restart.toString());
        List<String> errLines = restart.err().lines().toList();
        assertEquals(1, errLines.size(), "one warning line:\n" + restart);
        Matcher warned = Pattern.compile("vigil: warning: journal dir=" + Pattern.quote(journal.toString())
                + " was damaged \\(file=" + Pattern.quote(cycle.getFileName().toString()) + " index=0x[0-9a-f]+: .*checksum.*\\):"
                + " set aside as (" + Pattern.quote(journal.toString()) + "\\.damaged-\\d{8}T\\d{6}Z) .*; journaling into a"
                + " fresh journal at " + Pattern.quote(journal.toString())).matcher(errLines.get(0));
        assertTrue(warned.matches(), restart.toString());
        Path setAside = Path.of(warned.group(1));
        assertTrue(restart.out().contains("recovered what orchestrator pid="), restart.toString());
        assertTrue(restart.out().contains("result: CLEAN"), restart.toString());
        assertTrue(restart.out().contains("journal: " + journal + " (started fresh: the damaged journal before it was set aside as "
                + setAside), restart.toString());

        for (String command : List.of("closes", "audit")) {
            Launchers.Result fresh = Launchers.replay(work, 60, command, journal.toString());
            assertEquals(0, fresh.exitCode(), fresh.toString());
            assertTrue(fresh.out().contains("journal begins fresh here: the journal before it was damaged (file="
                    + cycle.getFileName()) && fresh.out().contains("set aside as " + setAside + "; the older history is there"),
                    command + ":\n" + fresh);
        }
        Launchers.Result older = Launchers.replay(work, 60, "export", setAside.toString());
        assertEquals(2, older.exitCode(), older.toString());
        assertTrue(older.err().strip().startsWith("ERR: journal dir=" + setAside + " file=" + cycle.getFileName() + " index=0x")
                && older.err().contains("checksum"), older.toString());
        assertTrue(older.out().contains("\"event\":\"CloseStarted\""), "the events before the damage:\n" + older.out());
    }

    private void awaitOutput(Process p, String text, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!Files.readString(work.resolve("vigil.out")).contains(text)) {
            assertTrue(p.isAlive(), "vigil exited early:\n" + Launchers.collect(work, "vigil", -1));
            assertTrue(System.nanoTime() < deadline, "'" + text + "' never printed:\n" + Launchers.collect(work, "vigil", -1));
            Thread.sleep(20);
        }
    }

    private static void awaitFile(Path dir, String prefix, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try (var files = Files.list(dir)) {
                if (files.anyMatch(f -> f.getFileName().toString().startsWith(prefix))) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "no " + prefix + "* in " + dir + " within " + seconds + " s");
            Thread.sleep(20);
        }
    }
}
