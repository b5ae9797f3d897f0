package dev.vigil.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.journal.CycleFileBytes;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.PoolStarted;

/**
 * The fleet on a real broker (bin/vigil-kafka in a directory of its own, a free loopback port):
 * three orchestrators as three hosts ship their journals to one topic, one shipper SIGKILLed mid-ship
 * and restarted, and the fleet replay over the topic equals the union of the three local replays;
 * then the bad inputs: no broker, unknown topic, foreign records, and the broker going away mid-ship.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FleetShippingIT {
    @TempDir
    static Path work;
    static Broker broker;

    @BeforeAll
    static void startBroker() {
        broker = Broker.start(work.resolve("kafka"), work);
    }

    @AfterEach
    void killLeftovers() {
        Cli.killAll();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    @Order(1)
    void threeHostsShipAndTheFleetReplayEqualsTheUnionOfTheirLocalReplaysWithAShipperKilledMidShip() throws Exception {
        String topic = "fleet-" + UUID.randomUUID();
        createTopic(topic, 3);
        String b = broker.bootstrap();
        // Hosts 1 and 2 ship while they run (vigil run --ship: a shipper process of their own).
        Cli.Started h1 = Cli.start(work, "run-h1", "vigil", "run", spec("h1", 1, 50).toString(),
                "--ship", b, "--ship-topic", topic, "--host-id", "h1");
        Cli.Started h2 = Cli.start(work, "run-h2", "vigil", "run", spec("h2", 1, 80).toString(),
                "--ship", b, "--ship-topic", topic, "--host-id", "h2");
        // Host 3 is shipped by bin/vigil ship, which is SIGKILLed mid-ship and started again.
        Path j3 = work.resolve("j3");
        Cli.Started h3 = Cli.start(work, "run-h3", "vigil", "run", spec("h3", 3, 200).toString());
        waitFor(600, "journal j3 exists", () -> Files.exists(j3.resolve("vigil-journal.properties")));
        Cli.Started ship3 = Cli.start(work, "ship-h3-killed", "vigil", "ship", j3.toString(), "--bootstrap", b,
                "--topic", topic, "--host-id", "h3");
        ShipCheckpoint cp3 = new ShipCheckpoint(j3, "h3", topic);
        waitFor(600, "the h3 shipper's first checkpoint", () -> Files.exists(cp3.file()));
        ship3.process().destroyForcibly(); // SIGKILL
        assertTrue(ship3.process().waitFor(30, TimeUnit.SECONDS));
        long killedAt = cp3.load();

        for (Cli.Started demo : List.of(h1, h2, h3)) {
            Cli.Result r = demo.await(900);
            assertEquals(0, r.exit(), r.toString());
        }
        // A second run on h3's journal after the kill: events past the killed shipper's checkpoint exist whatever the
        // machine's speed (on a loaded machine the first run could end before the shipper's first checkpoint).
        Cli.Result again3 = Cli.run(work, "run-h3-again", 300, "vigil", "run", spec("h3", 1, 200).toString());
        assertEquals(0, again3.exit(), again3.toString());
        assertTrue(lastIndex(j3) > killedAt, "the kill was mid-ship: events after the checkpoint 0x"
                + Long.toHexString(killedAt) + " were left to ship");
        Cli.Result resumed = Cli.run(work, "ship-h3-resumed", 120, "vigil", "ship", j3.toString(), "--bootstrap", b,
                "--topic", topic, "--host-id", "h3", "--to-end");
        assertEquals(0, resumed.exit(), resumed.toString());
        assertEquals(lastIndex(j3), cp3.load(), "after the rerun, the checkpoint is the journal's last event");
        for (String h : List.of("h1", "h2")) {
            String log = Files.readString(work.resolve("j" + h.substring(1)).resolve("shipped-" + topic + ".log"));
            assertTrue(log.contains("as host " + h), log);
            assertTrue(Files.readString(work.resolve("run-" + h + ".out")).contains("shipping: shipped "), "run --ship reports");
        }

        // Per host: the same events with the same journal indexes (nothing lost, nothing twice), the same closes.
        for (String h : List.of("h1", "h2", "h3")) {
            String dir = work.resolve("j" + h.substring(1)).toString();
            for (String cmd : h.equals("h3") ? List.of("export", "stats") : List.of("export")) {
                Cli.Result local = Cli.replay(cmd, dir);
                Cli.Result fleet = Cli.replay(cmd, "--kafka", b, "--topic", topic, "--host", h);
                assertEquals(0, local.exit(), local.toString());
                assertEquals(local, fleet, cmd + " of host " + h + " from the topic equals the local " + cmd);
            }
        }
        // Over the fleet: closes and audit are the union of the three local results, host by host.
        for (String cmd : List.of("closes", "audit")) {
            StringBuilder union = new StringBuilder();
            for (String h : List.of("h1", "h2", "h3")) {
                Cli.Result local = Cli.replay(cmd, work.resolve("j" + h.substring(1)).toString());
                assertEquals(0, local.exit(), local.toString());
                union.append("host ").append(h).append('\n').append(local.out()).append('\n');
            }
            union.append("fleet: 3 hosts").append(cmd.equals("audit") ? ", result: CLEAN" : "").append('\n');
            Cli.Result fleet = cmd.equals("audit")
                    ? Cli.run(work, "fleet-audit", 120, "vigil-replay", "audit", "--kafka", b, "--topic", topic)
                    : Cli.replay(cmd, "--kafka", b, "--topic", topic);
            assertEquals(0, fleet.exit(), fleet.toString());
            assertEquals(union.toString(), fleet.out(), "fleet " + cmd);
        }

        // The consumer's de-duplication is what keeps it exact: ship h3 again from no checkpoint, so the
        // topic holds every h3 event at least twice; raw records differ from events, the replay does not.
        Files.delete(cp3.file());
        Cli.Result again = Cli.run(work, "ship-h3-again", 120, "vigil", "ship", j3.toString(), "--bootstrap", b,
                "--topic", topic, "--host-id", "h3", "--to-end");
        assertEquals(0, again.exit(), again.toString());
        try (KafkaFleetSource topicRead = KafkaFleetSource.read(b, topic)) {
            long events = 0;
            for (String h : topicRead.hosts()) {
                events += topicRead.host(h).read(t -> false, (i, e) -> true);
            }
            assertTrue(topicRead.duplicates() >= events(j3), "every h3 event is in the topic twice: " + topicRead.counts());
            assertEquals(events(work.resolve("j1")) + events(work.resolve("j2")) + events(j3), events, topicRead.counts());
        }
        assertEquals(Cli.replay("export", j3.toString()), Cli.replay("export", "--kafka", b, "--topic", topic, "--host", "h3"));

        // show and timeline of one close: found in whichever host's journal holds it, the same output as locally.
        for (String h : List.of("h2", "h3")) {
            Path dir = work.resolve("j" + h.substring(1));
            String closeId = lastCloseId(dir);
            for (List<String> form : List.<List<String>>of(List.of(), List.of("--json"))) {
                List<String> local = new ArrayList<>(List.of("show", dir.toString(), closeId));
                local.addAll(form);
                List<String> remote = new ArrayList<>(List.of("show", "--kafka", b, "--topic", topic, closeId));
                remote.addAll(form);
                Cli.Result l = Cli.replay(local.toArray(String[]::new));
                assertEquals(0, l.exit(), l.toString());
                assertEquals(l, Cli.replay(remote.toArray(String[]::new)), "show " + closeId + form + " of host " + h);
            }
            Path localSvg = work.resolve("local-" + h + ".svg");
            Path fleetSvg = work.resolve("fleet-" + h + ".svg");
            assertEquals(0, Cli.replay("timeline", dir.toString(), closeId, "-o", localSvg.toString()).exit());
            Cli.Result t = Cli.replay("timeline", "--kafka", b, "--topic", topic, "--host", h, closeId, "-o", fleetSvg.toString());
            assertEquals(0, t.exit(), t.toString());
            assertEquals(Files.readString(localSvg), Files.readString(fleetSvg), "timeline of " + closeId + " from the topic");
        }
        Cli.Result missing = Cli.replay("show", "--kafka", b, "--topic", topic, "12345");
        assertEquals(2, missing.exit(), missing.toString());
        assertOneErrLine(missing, "ERR: close id=12345 is in no host's journal in kafka=" + b + " topic=" + topic
                + " (hosts: h1, h2, h3)");
    }

    /** The id of the last close a journal lists. */
    private static String lastCloseId(Path dir) {
        Cli.Result closes = Cli.replay("closes", "--json", dir.toString());
        assertEquals(0, closes.exit(), closes.toString());
        String[] lines = closes.out().strip().split("\n");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"closeId\":(\\d+)").matcher(lines[lines.length - 1]);
        assertTrue(m.find(), lines[lines.length - 1]);
        return m.group(1);
    }

    @Test
    @Order(2)
    void badInputGivesOneClearLineAndExitCodeTwoOrOne() throws Exception {
        Path j = work.resolve("jbad");
        try (JournalWriter w = JournalWriter.open(j)) {
            for (int i = 0; i < 10; i++) {
                w.append(new PoolStarted(i, 1, "p", 0, "h", "sticky", 1, 1));
            }
        }
        // No broker: bounded retries, one ERR line, exit 1, no checkpoint.
        int dead = freePort();
        long t0 = System.nanoTime();
        Cli.Result down = Cli.run(work, "ship-no-broker", 90, "vigil", "ship", j.toString(), "--bootstrap",
                "127.0.0.1:" + dead, "--topic", "t", "--host-id", "hb", "--wait", "3", "--retries", "1", "--to-end");
        assertEquals(1, down.exit(), down.toString());
        assertOneErrLine(down, "ERR: no Kafka broker answered at 127.0.0.1:" + dead);
        assertTrue(down.err().contains("(attempt 1/2)"), "--retries 1: two attempts, counted as such: " + down);
        assertTrue(down.err().contains("gave up after 2 attempts in a row"), down.toString());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(60), "bounded");
        assertFalse(Files.exists(j.resolve("shipped-t.properties")));
        Cli.Result replayDown = Cli.replay("closes", "--kafka", "127.0.0.1:" + dead, "--topic", "t");
        assertEquals(2, replayDown.exit(), replayDown.toString());
        assertOneErrLine(replayDown, "ERR: no Kafka broker answered at 127.0.0.1:" + dead);

        // Unknown topic, for the shipper and for the replay.
        String b = broker.bootstrap();
        Cli.Result unknown = Cli.run(work, "ship-unknown-topic", 90, "vigil", "ship", j.toString(), "--bootstrap", b,
                "--topic", "no-such-topic", "--host-id", "hb", "--to-end");
        assertEquals(2, unknown.exit(), unknown.toString());
        assertOneErrLine(unknown, "ERR: topic no-such-topic does not exist at " + b);
        Cli.Result unknownReplay = Cli.replay("audit", "--kafka", b, "--topic", "no-such-topic");
        assertEquals(2, unknownReplay.exit(), unknownReplay.toString());
        assertOneErrLine(unknownReplay, "ERR: topic no-such-topic does not exist at " + b);

        // A topic of something else.
        String foreign = "foreign-" + UUID.randomUUID();
        createTopic(foreign, 1);
        Properties p = new Properties();
        p.put("bootstrap.servers", b);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(foreign, "k", "{\"order\":42}")).get(30, TimeUnit.SECONDS);
        }
        Cli.Result notVigil = Cli.replay("closes", "--kafka", b, "--topic", foreign);
        assertEquals(2, notVigil.exit(), notVigil.toString());
        assertOneErrLine(notVigil, "ERR: topic=" + foreign + " partition=0 offset=0 is not a Vigil journal record");
        Cli.Result noHost = Cli.replay("closes", "--kafka", b, "--topic", foreign, "--host", "x");
        assertEquals(2, noHost.exit(), noHost.toString());
    }

    @Test
    @Order(3)
    void theBrokerGoingAwayMidShipLosesNothingAndTheShipperResumesWhenItIsBack() throws Exception {
        String topic = "outage-" + UUID.randomUUID();
        createTopic(topic, 3);
        Path j = work.resolve("jout");
        AtomicBoolean writing = new AtomicBoolean(true);
        JournalWriter w = JournalWriter.open(j);
        Thread writer = new Thread(() -> {
            long n = 0;
            while (writing.get()) {
                w.append(new PoolStarted(n++, 7, "pool-" + (n % 5), 0, "hout", "sticky", 1, 1));
                if (n % 20 == 0) {
                    sleep(10);
                }
            }
        }, "outage-writer");
        writer.start();
        Cli.Started ship = Cli.start(work, "ship-outage", "vigil", "ship", j.toString(), "--bootstrap",
                broker.bootstrap(), "--topic", topic, "--host-id", "hout", "--wait", "10", "--retries", "30");
        ShipCheckpoint cp = new ShipCheckpoint(j, "hout", topic);
        try {
            waitFor(240, "first checkpoint", () -> Files.exists(cp.file()));
            broker.stop();
            waitFor(180, "the shipper reporting the outage", () -> read(work.resolve("ship-outage.err")).contains("(attempt 1/31)"));
            long duringOutage = cp.load();
            broker.startAgain();
            writing.set(false);
            writer.join(10_000);
            w.flush();
            long last = w.lastWrittenIndex();
            waitFor(240, "the checkpoint reaching the journal's end", () -> cp.load() == last);
            assertTrue(last > duringOutage, "events written while the broker was away were shipped after it came back");
        } finally {
            writing.set(false);
            w.close();
            ship.process().destroy(); // SIGTERM: ships what it read, writes the checkpoint, exits
            ship.await(60);
        }
        String err = read(work.resolve("ship-outage.err"));
        assertFalse(err.contains("\tat "), "no stack trace: " + err);
        assertEquals(Cli.replay("export", j.toString()), Cli.replay("export", "--kafka", broker.bootstrap(),
                "--topic", topic, "--host", "hout"), "nothing lost, nothing twice");
    }

    /**
     * {@code vigil run --ship} to a cluster nobody answers at: the shipper retries for minutes, so once the pools are
     * closed the run says it is waiting for the shipper (not a silent stall), a Ctrl-C ends that wait at once, and the
     * shipper does not outlive the run. No broker needed.
     */
    @Test
    @Order(4)
    void aRunWaitingForItsShipperSaysSoAndCtrlCEndsTheWaitWithNoShipperLeft() throws Exception {
        Path spec = spec("hdead", 1, 0);
        int dead = freePort();
        Cli.Started run = Cli.start(work, "run-dead-broker", "vigil", "run", spec.toString(), "--ship",
                "127.0.0.1:" + dead, "--ship-topic", "t");
        waitFor(120, "the run saying it waits for its shipper", () -> read(run.out()).contains("shipping: the shipper is still sending"));
        String out = read(run.out());
        assertTrue(out.indexOf("closing") < out.indexOf("shipping: the shipper is still sending"), out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("shipping the journal to .* \\(pid (\\d+),").matcher(out);
        assertTrue(m.find(), out);
        ProcessHandle shipper = ProcessHandle.of(Long.parseLong(m.group(1))).orElseThrow(() -> new AssertionError("shipper gone early: " + out));
        long t0 = System.nanoTime();
        new ProcessBuilder("kill", "-INT", Long.toString(run.process().pid())).start().waitFor(10, TimeUnit.SECONDS);
        Cli.Result r = run.await(30);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(15), "Ctrl-C ended the wait promptly: " + r);
        assertTrue(r.out().contains("shipping: stopped on request; stopped the shipper"), r.toString());
        waitFor(5, "the shipper gone", () -> !shipper.isAlive());
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r);
    }

    /**
     * SIGTERM (or Ctrl-C) of a shipper waiting for a broker that does not answer ends it at once, with one line saying
     * where it stopped; it used to sit out the 20 s its shutdown hook waits, saying nothing.
     */
    @Test
    @Order(6)
    void aShipperStoppedWhileWaitingForTheBrokerEndsAtOnceWithOneLine() throws Exception {
        Path j = work.resolve("jstop");
        try (JournalWriter w = JournalWriter.open(j)) {
            w.append(new PoolStarted(1, 1, "p", 0, "h", "sticky", 1, 1));
        }
        int dead = freePort();
        Cli.Started ship = Cli.start(work, "ship-stopped-waiting", "vigil", "ship", j.toString(), "--bootstrap",
                "127.0.0.1:" + dead, "--topic", "t", "--host-id", "hs", "--to-end");
        waitFor(60, "the first failed attempt", () -> read(ship.err()).contains("(attempt 1/"));
        sleep(300); // into the next attempt's wait for the broker (15 s)
        long t0 = System.nanoTime();
        ship.process().destroy(); // SIGTERM
        Cli.Result r = ship.await(30);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(tookMs < 5_000, "ended at once, not after the wait for the broker: " + tookMs + " ms\n" + r);
        assertOneErrLine(r, "ERR: stopped while waiting for a Kafka broker at 127.0.0.1:" + dead
                + "; shipped up to index=none");
        assertEquals(143, r.exit(), r.toString());
    }

    /**
     * A journal damaged in the middle: the shipper ships every event before the damage, then a record saying where the
     * damage is, and exits 2 naming it; a replay of the topic shows the same events as a replay of the journal and stops
     * with the damage named (exit 2), never a shorter clean journal. A rerun ships the same record; it is kept once.
     */
    @Test
    @Order(5)
    void aDamagedJournalShipsUpToTheDamageAndTheTopicNamesItNeverAShorterCleanJournal() throws Exception {
        String topic = "damage-" + UUID.randomUUID();
        createTopic(topic, 3);
        Path j = work.resolve("jdamaged");
        try (JournalWriter w = JournalWriter.open(j)) {
            for (int i = 0; i < 1000; i++) {
                w.append(new PoolStarted(i, 9, "pool-" + (i % 5), 0, "hdmg", "sticky", 1, 1));
            }
        }
        Path cycle = CycleFileBytes.cycleFile(j);
        long[] bodies = CycleFileBytes.bodyPositions(cycle);
        CycleFileBytes.flip(cycle, bodies[bodies.length / 2] + 8, 0x10); // inside one event's body: its checksum fails
        Cli.Result local = Cli.replay("export", j.toString());
        assertEquals(2, local.exit(), local.toString());
        long before = local.out().lines().count();
        assertTrue(before > 100 && before < 1000, "the events before the damage: " + before);
        String[] ship = {"ship", j.toString(), "--bootstrap", broker.bootstrap(), "--topic", topic, "--host-id", "hdmg",
            "--to-end"};
        for (int run = 1; run <= 2; run++) {
            Cli.Result shipped = Cli.run(work, "ship-damaged-" + run, 120, "vigil", ship);
            assertEquals(2, shipped.exit(), shipped.toString());
            assertOneErrLine(shipped, "ERR: journal dir=" + j);
            Cli.Result fleet = Cli.replay("export", "--kafka", broker.bootstrap(), "--topic", topic, "--host", "hdmg");
            assertEquals(2, fleet.exit(), fleet.toString());
            assertEquals(local.out(), fleet.out(), "run " + run + ": the same events before the damage, each once");
            assertOneErrLine(fleet, "ERR: host=hdmg: its journal is damaged at index=");
            assertTrue(fleet.err().contains(local.err().strip().substring("ERR: ".length())), "the reader's own words: " + fleet);
        }
        Cli.Result audit = Cli.replay("audit", "--kafka", broker.bootstrap(), "--topic", topic);
        assertEquals(2, audit.exit(), audit.toString());
        assertFalse(audit.out().contains("result: CLEAN"), audit.toString());
    }

    // ---- helpers

    /** A small pool spec for host {@code h}: two pools of C children, a few control commands, closed each cycle. */
    private static Path spec(String h, int cycles, int teardownMillis) throws IOException {
        String pool = "{\"id\": \"%s\", \"workload\": {\"controls\": 3, \"controlTimeoutMs\": 10000},"
                + " \"groups\": [{\"name\": \"chips\", \"kind\": \"c\", \"children\": 3,"
                + " \"env\": {\"VIGIL_DEMO_TEARDOWN_MILLIS\": \"" + teardownMillis + "\"}}]}";
        String json = "{\"journalDir\": \"" + work.resolve("j" + h.substring(1)) + "\", \"cycles\": " + cycles
                + ", \"pools\": [" + String.format(pool, "rack-a") + ", " + String.format(pool, "rack-b") + "]}";
        Path file = work.resolve("spec-" + h + ".json");
        Files.writeString(file, json);
        return file;
    }

    private static void assertOneErrLine(Cli.Result r, String prefix) {
        List<String> errs = r.err().lines().filter(l -> l.startsWith("ERR:")).toList();
        assertEquals(1, errs.size(), r.toString());
        assertTrue(errs.get(0).startsWith(prefix), "expected '" + prefix + "...' in\n" + r);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception in thread"), "no stack trace: " + r);
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", broker.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static long lastIndex(Path journal) {
        long[] last = {-1};
        try (JournalReader r = JournalReader.open(journal)) {
            r.fromStart().readAll((i, e) -> {
                last[0] = i;
                return true;
            });
        }
        return last[0];
    }

    private static long events(Path journal) {
        try (JournalReader r = JournalReader.open(journal)) {
            return r.fromStart().readAll((i, e) -> true);
        }
    }

    private static int freePort() throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void waitFor(long seconds, String what, BooleanSupplier done) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            sleep(50);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "";
        }
    }

}
