package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.JournalGap;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.SmallTmpfs;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal on a real file system that is full (a small tmpfs this test mounts, as root): a pool
 * still starts, works and closes (shutdown broadcast, every child reaped), the live report and the
 * writer name where the journal stops, the first event not written, how many, and "no space left
 * on" the mount; what was written reads back as a whole prefix.
 */
@Timeout(120)
class JournalFullDiskTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path tmp;
    @RegisterExtension
    final SmallTmpfs tmpfs = new SmallTmpfs("vigil-journal-test");

    /** Before the tmpfs is unmounted (the extension's after-each runs after this). */
    @AfterEach
    void noChildLeft() throws InterruptedException {
        List<ProcessTree.Proc> left = ProcessTree.awaitNoChildren(2000);
        assertTrue(left.isEmpty(), "children of the test JVM left: " + left);
    }

    @Test
    void aDiskThatFillsUpMidRunNeverKeepsThePoolFromClosingAndTheReportSaysWhereTheJournalStops() throws Exception {
        Path journal = tmpfs.path().resolve("journal");
        JournalGap gap;
        CloseReport report;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).mailboxFile(tmp.resolve("mailboxes.map"))
                .closeSettings(CloseSettings.defaults()).open()) {
            Pool p = Pool.builder(o, "full").group("java", 1, ChildSpec.java(DemoHandler.class.getName()))
                    .group("chips", 2, ChildSpec.cDemo()).start();
            p.control("chips", 0, DemoHandler.OP_ECHO, 1, WAIT);
            o.journal().writer().flush();
            assertTrue(o.journal().gap().isEmpty(), "complete before the disk fills");
            tmpfs.fill();
            // Enough work to need pages the full file system cannot give (the writer reserves up to 256 KiB ahead).
            for (int i = 0; i < 20_000 && o.journal().gap().isEmpty(); i++) {
                p.control("chips", i % 2, DemoHandler.OP_ECHO, i, WAIT);
            }
            report = p.closeWithReport();
            gap = o.journal().gap().orElse(null);
        }
        assertNotNull(gap, "the journal must have run into the full disk");
        assertEquals(CloseReport.Outcome.CLEAN, report.outcome(), report.toJson());
        assertEquals(3, report.children().stream().filter(c -> c.sinceBroadcastNanos() >= 0).count(), report.toJson());
        assertTrue(gap.reason().contains("no space left on " + tmpfs.path()), gap.describe());
        assertTrue(gap.describe().contains("incomplete from index=0x"), gap.describe());
        assertTrue(gap.notWritten() > 0 && gap.firstNotWritten() != null, gap.describe());
        assertLiveReportNamesTheGap(report, gap);
        // What was written is a whole prefix: it reads to its end without error, up to the gap.
        List<Long> indexes = new ArrayList<>();
        try (JournalReader r = JournalReader.open(journal)) {
            r.fromStart().readAll((i, e) -> indexes.add(i));
        }
        assertTrue(indexes.size() > 5, "events before the disk filled: " + indexes.size());
        assertEquals(gap.fromIndex(), indexes.get(indexes.size() - 1) + 1, gap.describe());
    }

    @Test
    void aDiskFullAtStartStillRunsAndClosesThePoolAndSaysNothingWasJournaled() throws Exception {
        tmpfs.fill();
        Path journal = tmpfs.path().resolve("journal");
        CloseReport report;
        JournalGap gap;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).mailboxFile(tmp.resolve("mailboxes.map"))
                .closeSettings(CloseSettings.defaults()).open()) {
            Pool p = Pool.builder(o, "full-at-start").group("chips", 2, ChildSpec.cDemo()).start();
            p.control("chips", 1, DemoHandler.OP_ECHO, 1, WAIT);
            long start = System.nanoTime();
            report = p.closeWithReport();
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "close took too long");
            gap = o.journal().gap().orElse(null);
        }
        assertNotNull(gap);
        assertEquals(CloseReport.Outcome.CLEAN, report.outcome(), report.toJson());
        assertEquals(2, report.children().stream().filter(c -> c.sinceBroadcastNanos() >= 0).count(), report.toJson());
        assertTrue(gap.reason().contains("could not be opened: no space left on " + tmpfs.path()), gap.describe());
        assertTrue(gap.notWritten() >= 10, "every event counted: " + gap.describe());
        assertLiveReportNamesTheGap(report, gap);
    }

    /** The live report (and its JSON) says from which index the journal is incomplete, and why. */
    private void assertLiveReportNamesTheGap(CloseReport report, JournalGap gap) throws Exception {
        assertNotNull(report.journalGap(), "the live report says the journal is incomplete: " + report.toJson());
        assertTrue(report.journalGap().contains("incomplete from index="
                + (gap.fromIndex() < 0 ? "?" : "0x" + Long.toHexString(gap.fromIndex())) + ": "),
                report.journalGap() + " vs " + gap.describe());
        assertTrue(report.journalGap().contains("no space left on " + tmpfs.path()), report.journalGap());
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(report.toJson());
        assertEquals(report.journalGap(), json.path("journalGap").asText(null), report.toJson());
    }
}
