package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.ChildExited;
import dev.vigil.journal.CommandFailed;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.mailbox.MailboxException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A child that dies while its pool runs: journaled at once, its command failed at once naming the exit. */
@Timeout(120)
class ChildExitDuringRunTest {
    @TempDir
    Path tmp;

    @Test
    void aChildKilledDuringTheRunIsJournaledAtOnceAndItsCommandFailsNamingTheExit() throws Exception {
        Path journalDir = tmp.resolve("journal");
        try (Orchestrator o = Orchestrator.builder().journalDir(journalDir).closeSettings(CloseSettings.defaults()).open();
                Pool pool = Pool.builder(o, "dies").group("gated", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1"))
                        .start()) {
            PoolChild child = pool.child("gated", 0);
            // A command the gated child holds (it waits for its gate): nobody would answer it before the timeout.
            pool.sendControl("gated", 0, DemoHandler.OP_ECHO, 1);
            long killedAt = MonotonicClock.nanos();
            child.process().signal(9);
            child.exit().get();
            MailboxException e = assertThrows(MailboxException.class,
                    () -> pool.awaitControl("gated", 0, Duration.ofSeconds(30)));
            long waited = MonotonicClock.nanos() - killedAt;
            assertTrue(e.getMessage().contains("child exited during the run") && e.getMessage().contains("signal=9"),
                    e.getMessage());
            assertTrue(waited < Duration.ofSeconds(10).toNanos(), "failed at once, not at its 30 s timeout: " + waited);
            o.journal().writer().flush();
            List<JournalEvent> events = JournalChecks.readAll(journalDir);
            assertTrue(events.stream().anyMatch(ev -> ev instanceof ChildExited x && x.pid() == child.pid()
                    && x.signal() == 9), "ChildExited journaled");
            assertTrue(events.stream().anyMatch(ev -> ev instanceof CommandFailed f && f.reason().contains("signal=9")),
                    "the command's end journaled: CommandFailed");
            CloseReport r = pool.closeWithReport();
            assertEquals(CloseReport.ChildOutcome.SIGNALED, r.child("gated", 0).outcome());
        }
    }
}
