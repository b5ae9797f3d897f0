package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.JournalScenarios;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.journal.JournalOwner;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.spawn.Redirect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code show} of a real close, as a user replays it: a C child reaped (its mailbox released) beside a plain
 * executable that traps its stop signal (killed by escalation). About 2 s: window 0.5 s, grace 0.2 s.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ShowOfRealChildrenTest {
    @TempDir
    Path tmp;

    @Test
    void aReleasedMailboxIsNotReadAsLiveAndAPlainExecutableIsNotSaidToIdleInALoop() throws Exception {
        Path journal = tmp.resolve("journal");
        Path armed = tmp.resolve("armed");
        CloseReport report;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).open()) {
            Pool p = Pool.builder(o, "mixed").childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(30))
                    .closeSettings(CloseSettings.builder().window(Duration.ofMillis(500))
                            .escalation(EscalationPolicy.TERM_THEN_KILL).grace(Duration.ofMillis(200)).build())
                    .group("chips", 1, ChildSpec.cDemo())
                    .group("plain", 1, ChildSpec.exec("sh", "-c", "trap '' TERM; : > \"$ARMED\"; while :; do sleep 0.05; done")
                            .withEnv("ARMED", armed.toString()))
                    .start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(armed)) {
                assertTrue(System.nanoTime() < deadline, "the plain child never armed its TERM trap");
                Thread.sleep(5);
            }
            report = JournalScenarios.closeExpectingFailure(p);
        }
        Path map = JournalOwner.sibling(journal, "-mailboxes.map");
        assertTrue(Files.isRegularFile(map), map::toString);
        CliRun show = CliRun.of("show", journal.toString(), Long.toString(report.closeId()), "--map", map.toString());
        assertEquals(0, show.exit(), show::toString);
        List<String> lines = show.out().lines().toList();
        // the C child was reaped and its mailbox released: the freed record's bytes are not its mailbox any more
        String mapLine = lines.stream().filter(l -> l.startsWith("  map file: ")).findFirst().orElseThrow(() -> new AssertionError(show));
        assertTrue(mapLine.contains("(released: MailboxReleased journaled") && !mapLine.contains("state word"), mapLine);
        // the plain executable has no loop: neither its verdict nor its cause line says it idled in one
        assertFalse(show.out().contains("idle in its loop"), show::toString);
        assertTrue(show.out().contains("a plain executable (no mailbox) that outlived its stop signal"), show::toString);
        assertTrue(show.out().contains("stop signal delivered but it did not exit"), show::toString);
    }

    /**
     * A child in INIT_READY runs its loop (docs/MAILBOX.md, the child's step 4): one never sent a command is idle there.
     * The verdict of such a child ignoring shutdown said "in state INIT_READY", as if it were somewhere else.
     */
    @Test
    void aChildNeverSentACommandIsIdleInItsLoop() {
        assertEquals("idle in its loop (ready, never sent a command)", MailboxStates.whereTheChildIs(MailboxStates.INIT_READY));
    }
}
