package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.vigil.close.decision.MailboxWords;
import dev.vigil.mailbox.MailboxDescriptor;
import dev.vigil.mailbox.MailboxState;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Post-mortem with --map: the orchestrator died inside a legacy-mode close, after the closer wrote
 * SHUTDOWN and before it drained the child's CONTROL_DONE out of the ring. The journal alone
 * cannot say why pid 4711 was never reaped; the mailbox map file can.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MapPostMortemTest {
    @TempDir
    Path tmp;

    Path journal;
    Path map;
    long racerOffset;
    long racerSeq;

    @BeforeEach
    void anOrchestratorDiedInsideALegacyClose() throws IOException {
        journal = tmp.resolve("journal");
        try (ScenarioJournal j = new ScenarioJournal(journal, 4709)) {
            ScenarioJournal.Pool p = j.pool("p-died", "legacy", "chips", 3);
            for (ScenarioJournal.Child c : p.children) {
                p.control(c);
            }
            p.enterControlHandler(p.child(2));
            ScenarioJournal.Close close = p.close(Scenarios.LEAK, 0).broadcast();
            close.exits(p.child(0), 100, 0);
            close.exits(p.child(1), 120, 0);
            racerSeq = p.child(2).seq;
            racerOffset = 4096L * 3;
            // ...and here the orchestrator was killed: no diagnosis, no report, no drain of the child's write
        }
        map = tmp.resolve("mailboxes.dat");
        writeMap(map, racerOffset, MailboxDescriptor.LAYOUT_VERSION, racerSeq);
    }

    /** A map file holding one live mailbox (the racer's); the released ones are gone (zeros). */
    static void writeMap(Path file, long offset, int layoutVersion, long seq) throws IOException {
        writeMap(file, offset, layoutVersion, seq, 4711, 1);
    }

    /**
     * The same with the child pid and spawn epoch the mailbox holds (the journal's racer: pid 4711, epoch 1). The
     * file starts the way the orchestrator's Chronicle Map store does (12 bytes, then the header's class name).
     */
    static void writeMap(Path file, long offset, int layoutVersion, long seq, int childPid, long spawnEpoch)
            throws IOException {
        ByteBuffer b = ByteBuffer.allocate((int) offset + MailboxDescriptor.DEFAULT_MAILBOX_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.position(12);
        b.put("!net.openhft.chronicle.map.VanillaChronicleMap {\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        int at = (int) offset;
        b.putLong(at + MailboxDescriptor.MAGIC_OFFSET, MailboxDescriptor.MAGIC);
        b.putLong(at + MailboxDescriptor.SPAWN_EPOCH_OFFSET, spawnEpoch);
        b.putInt(at + MailboxDescriptor.LAYOUT_VERSION_OFFSET, layoutVersion);
        b.putInt(at + MailboxDescriptor.PROTOCOL_MODE_OFFSET, 1);
        b.putInt(at + MailboxDescriptor.MAILBOX_LENGTH_OFFSET, MailboxDescriptor.DEFAULT_MAILBOX_LENGTH);
        b.putInt(at + MailboxDescriptor.RING_CAPACITY_OFFSET, MailboxDescriptor.DEFAULT_RING_CAPACITY);
        b.putInt(at + MailboxDescriptor.CHILD_PID_OFFSET, childPid);
        b.putLong(at + MailboxDescriptor.STATE_WORD_OFFSET, MailboxStates.CONTROL_DONE | 2L << 8 | seq << 16);
        b.putLong(at + MailboxDescriptor.HEARTBEAT_OFFSET, 98_765);
        long t = 5_000_010_000_000L;
        ring(b, at, 4, seq - 1, t, MailboxStates.IDLE, MailboxStates.CONTROL_REQUEST, 1, 900);
        ring(b, at, 5, seq, t + 1_000, MailboxStates.CONTROL_REQUEST, MailboxStates.SHUTDOWN, 3, 900);
        ring(b, at, 6, seq, t + 2_000, MailboxStates.CONTROL_REQUEST, MailboxStates.CONTROL_DONE, 2, 4711);
        Files.write(file, b.array());
    }

    private static void ring(ByteBuffer b, int mailbox, long ticket, long seq, long time, int from, int to, int role, int pid) {
        int at = mailbox + MailboxDescriptor.RING_OFFSET + (int) (ticket % MailboxDescriptor.DEFAULT_RING_CAPACITY)
                * MailboxDescriptor.RING_RECORD_LENGTH;
        b.putLong(at + MailboxDescriptor.RECORD_TICKET_OFFSET, ticket + 1);
        b.putLong(at + MailboxDescriptor.RECORD_SEQ_OFFSET, seq);
        b.putLong(at + MailboxDescriptor.RECORD_TIME_OFFSET, time);
        b.putLong(at + MailboxDescriptor.RECORD_ORIGIN_OFFSET, from | (long) to << 8 | (long) role << 16 | (long) pid << 32);
    }

    @Test
    void theReplaysStateNumberingAgreesWithTheOrchestrators() {
        // Two copies on purpose: the replay must not need the orchestrator, and the Java child (which
        // owns MailboxState) runs with no journal classes on its class path. This test keeps them one.
        int[][] pairs = {
            {MailboxState.IDLE, MailboxStates.IDLE}, {MailboxState.TASK_READY, MailboxStates.TASK_READY},
            {MailboxState.TASK_DONE, MailboxStates.TASK_DONE}, {MailboxState.SHUTDOWN, MailboxStates.SHUTDOWN},
            {MailboxState.CONTROL_REQUEST, MailboxStates.CONTROL_REQUEST},
            {MailboxState.CONTROL_DONE, MailboxStates.CONTROL_DONE}, {MailboxState.INIT_READY, MailboxStates.INIT_READY},
            {MailboxState.INIT_FAILED, MailboxStates.INIT_FAILED},
            {MailboxState.SHUTDOWN, MailboxWords.LEGACY_SHUTDOWN_STATE},
            {MailboxState.TASK_READY, MailboxWords.TASK_READY_STATE},
            {MailboxState.CONTROL_REQUEST, MailboxWords.CONTROL_REQUEST_STATE}};
        for (int[] p : pairs) {
            assertEquals(p[0], p[1]);
        }
        for (int state = 0; state <= MailboxState.INIT_FAILED; state++) {
            assertEquals(MailboxState.name(state), MailboxStates.name(state), "state " + state);
        }
    }

    @Test
    void theReplaysCopyOfTheLayoutAgreesWithTheOrchestratorsDescriptor() {
        assertEquals(MailboxDescriptor.MAGIC, MailboxMapFile.MAGIC);
        assertEquals(MailboxDescriptor.LAYOUT_VERSION, MailboxMapFile.LAYOUT_VERSION);
        assertEquals(MailboxDescriptor.LAYOUT_VERSION_OFFSET, MailboxMapFile.LAYOUT_VERSION_OFFSET);
        assertEquals(MailboxDescriptor.PROTOCOL_MODE_OFFSET, MailboxMapFile.PROTOCOL_MODE_OFFSET);
        assertEquals(MailboxDescriptor.MAILBOX_LENGTH_OFFSET, MailboxMapFile.MAILBOX_LENGTH_OFFSET);
        assertEquals(MailboxDescriptor.RING_CAPACITY_OFFSET, MailboxMapFile.RING_CAPACITY_OFFSET);
        assertEquals(MailboxDescriptor.CHILD_PID_OFFSET, MailboxMapFile.CHILD_PID_OFFSET);
        assertEquals(MailboxDescriptor.SPAWN_EPOCH_OFFSET, MailboxMapFile.SPAWN_EPOCH_OFFSET);
        assertEquals(MailboxDescriptor.STATE_WORD_OFFSET, MailboxMapFile.STATE_WORD_OFFSET);
        assertEquals(MailboxDescriptor.SHUTDOWN_WORD_OFFSET, MailboxMapFile.SHUTDOWN_WORD_OFFSET);
        assertEquals(MailboxDescriptor.SHUTDOWN_ACK_OFFSET, MailboxMapFile.SHUTDOWN_ACK_OFFSET);
        assertEquals(MailboxDescriptor.HEARTBEAT_OFFSET, MailboxMapFile.HEARTBEAT_OFFSET);
        assertEquals(MailboxDescriptor.RING_OFFSET, MailboxMapFile.RING_OFFSET);
        assertEquals(MailboxDescriptor.RING_RECORD_LENGTH, MailboxMapFile.RING_RECORD_LENGTH);
        assertEquals(MailboxDescriptor.MAX_RING_CAPACITY, MailboxMapFile.MAX_RING_CAPACITY);
        assertEquals(8, MailboxDescriptor.RECORD_SEQ_OFFSET);
        assertEquals(16, MailboxDescriptor.RECORD_TIME_OFFSET);
        assertEquals(24, MailboxDescriptor.RECORD_ORIGIN_OFFSET);
        assertEquals(16, MailboxDescriptor.SEQ_SHIFT);
        assertEquals(8, MailboxDescriptor.WRITER_SHIFT);
    }

    @Test
    void withoutTheMapTheJournalCannotSayWhyTheChildSurvived() {
        CliRun show = CliRun.of("show", journal.toString(), "1");
        assertEquals(0, show.exit(), show::toString);
        assertTrue(show.out().contains("verdict: INCOMPLETE"), show::toString);
        assertFalse(show.out().contains("SHUTDOWN overwritten"), show::toString);
        CliRun audit = CliRun.of("audit", journal.toString());
        assertTrue(audit.out().contains("CLOSE_NOT_COMPLETED") && !audit.out().contains("LOST_UPDATE"), audit::toString);
    }

    @Test
    void theMapFinishesThePictureForShowAndAudit() {
        CliRun show = CliRun.of("show", journal.toString(), "1", "--map", map.toString());
        assertEquals(0, show.exit(), show::toString);
        assertTrue(show.out().contains("FAILED: SHUTDOWN overwritten by child pid 4711 CONTROL_DONE at seq " + racerSeq),
                show::toString);
        assertTrue(show.out().contains("map file: state word CONTROL_DONE (CHILD, seq " + racerSeq + "), shutdown word unset"),
                show::toString);
        assertTrue(show.out().contains("(from the map file's ring)"), show::toString);
        CliRun audit = CliRun.of("audit", journal.toString(), "--map", map.toString());
        assertEquals(AuditCommand.EXIT_VIOLATIONS, audit.exit(), audit::toString);
        assertTrue(audit.out().contains("VIOLATION LOST_UPDATE") && audit.out().contains("in the map file's ring"),
                audit::toString);
    }

    @Test
    void aMapFileOfAnotherLayoutVersionOrNoneAtAllIsOneErrLine() throws IOException {
        Path wrong = tmp.resolve("wrong-version.dat");
        writeMap(wrong, racerOffset, MailboxDescriptor.LAYOUT_VERSION + 1, racerSeq);
        for (String cmd : new String[] {"show", "audit"}) {
            String[] args = cmd.equals("show") ? new String[] {cmd, journal.toString(), "1", "--map", wrong.toString()}
                    : new String[] {cmd, journal.toString(), "--map", wrong.toString()};
            CliRun run = CliRun.of(args);
            assertTrue(run.isOneErrLine() && run.err().contains("layout version=" + (MailboxDescriptor.LAYOUT_VERSION + 1)), run::toString);
            String nope = tmp.resolve("nope.dat").toString();
            CliRun missing = cmd.equals("show") ? CliRun.of(cmd, journal.toString(), "1", "--map", nope)
                    : CliRun.of(cmd, journal.toString(), "--map", nope);
            assertTrue(missing.isOneErrLine() && missing.err().contains("does not exist"), missing::toString);
        }
    }

    private CliRun run(String cmd, Path mapFile) {
        return cmd.equals("show") ? CliRun.of(cmd, journal.toString(), "1", "--map", mapFile.toString())
                : CliRun.of(cmd, journal.toString(), "--map", mapFile.toString());
    }

    @Test
    void aFileThatIsNoMailboxMapFileIsOneErrLineNamingIt() throws IOException {
        Path json = Files.writeString(tmp.resolve("spec.json"), "{\"pools\":[{\"id\":\"p\",\"groups\":[]}]}\n");
        Path text = Files.writeString(tmp.resolve("notes.txt"), "mailboxes live in /var/lib/vigil\n".repeat(400));
        byte[] noise = new byte[64 << 10];
        new java.util.Random(10).nextBytes(noise);
        noise[0] = 0; // a NUL byte right at the start: never printed raw
        Path random = Files.write(tmp.resolve("random.dat"), noise);
        Path empty = Files.write(tmp.resolve("empty.dat"), new byte[0]);
        for (Path bad : new Path[] {json, text, random, empty}) {
            for (String cmd : new String[] {"show", "audit"}) {
                CliRun r = run(cmd, bad);
                assertTrue(r.isOneErrLine(), r::toString);
                assertTrue(r.err().contains("mailbox map file=" + bad + " is not a mailbox map file"), r::toString);
                assertFalse(r.err().contains("\0"), "no raw NUL bytes: " + r);
            }
        }
        assertTrue(run("show", json).err().contains("starting \"{.pools.:[{.id.:.p.,.gro\""), run("show", json)::toString);
    }

    @Test
    void aLayoutOneMapFileIsOneErrLineSayingThisBuildCannotReadIt() throws IOException {
        Path old = tmp.resolve("layout1.dat");
        writeMap(old, racerOffset, 1, racerSeq);
        for (String cmd : new String[] {"show", "audit"}) {
            CliRun r = run(cmd, old);
            assertTrue(r.isOneErrLine(), r::toString);
            assertTrue(r.err().contains("offset=" + racerOffset + " has layout version=1")
                    && r.err().contains("this build reads layout version=" + MailboxDescriptor.LAYOUT_VERSION + " only"), r::toString);
        }
    }

    @Test
    void aMapFileCutInsideTheMailboxOrWithABadLengthIsOneErrLine() throws IOException {
        Path cut = tmp.resolve("cut.dat");
        writeMap(cut, racerOffset, MailboxDescriptor.LAYOUT_VERSION, racerSeq);
        byte[] whole = Files.readAllBytes(cut);
        Files.write(cut, java.util.Arrays.copyOf(whole, (int) racerOffset + MailboxDescriptor.RING_OFFSET + 100));
        Path badLength = tmp.resolve("bad-length.dat");
        ByteBuffer b = ByteBuffer.wrap(whole.clone()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt((int) racerOffset + MailboxDescriptor.MAILBOX_LENGTH_OFFSET, 123);
        Files.write(badLength, b.array());
        // Cut before the mailbox: it read as "no mailbox at offset N (released, ...)", exit 0.
        Path cutBefore = Files.write(tmp.resolve("cut-before.dat"), java.util.Arrays.copyOf(whole, (int) racerOffset));
        for (String cmd : new String[] {"show", "audit"}) {
            CliRun r = run(cmd, cut);
            assertTrue(r.isOneErrLine() && r.err().contains("ends inside the mailbox"), r::toString);
            CliRun before = run(cmd, cutBefore);
            assertTrue(before.isOneErrLine() && before.err().contains("mailbox map file=" + cutBefore + " offset="
                    + racerOffset + " lies past the end of the file (length=" + racerOffset + ")"), before::toString);
            CliRun l = run(cmd, badLength);
            assertTrue(l.isOneErrLine() && l.err().contains("has a bad header: length=123"), l::toString);
        }
    }

    @Test
    void aMailboxNowOwnedByAnotherChildIsNamedInOneLineAndItsWordsAreNotUsed() throws IOException {
        // The racer's mailbox was released and allocated again to pid 5123 (a later spawn): its ring holds that
        // child's records, which must not be read as pid 4711's.
        Path reused = tmp.resolve("reused.dat");
        writeMap(reused, racerOffset, MailboxDescriptor.LAYOUT_VERSION, racerSeq, 5123, 77);
        CliRun show = run("show", reused);
        assertEquals(0, show.exit(), show::toString);
        String line = "map file: the mailbox at offset " + racerOffset + " belongs to another child now (pid 5123, spawn"
                + " epoch 77), not to pid 4711 (spawn epoch 1): its words are not shown";
        assertTrue(show.out().contains(line), show::toString);
        assertFalse(show.out().contains("(from the map file's ring)"), show::toString);
        assertFalse(show.out().contains("SHUTDOWN overwritten"), show::toString);
        CliRun audit = run("audit", reused);
        assertTrue(audit.out().contains("map file: mailbox p-died chips/2: the mailbox at offset " + racerOffset
                + " belongs to another child now"), audit::toString);
        assertFalse(audit.out().contains("LOST_UPDATE"), audit::toString);
        // Same pid, other spawn epoch (a pid reused by the system): still another child's mailbox.
        writeMap(reused, racerOffset, MailboxDescriptor.LAYOUT_VERSION, racerSeq, 4711, 78);
        CliRun samePid = run("show", reused);
        assertTrue(samePid.out().contains("belongs to another child now (pid 4711, spawn epoch 78)"), samePid::toString);
    }
}
