package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.vigil.journal.MailboxTransition;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal holds events in processing order: ring records reach it when the drainer reads them, so a
 * transition made before a close started can sit after its CloseStarted, and two writers' stamps can invert.
 * show, timeline and the audit's report go by the events' own times; each assertion here fails when they go by
 * journal order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TimeOrderTest {
    private static final int PARENT = ScenarioJournal.ORCHESTRATOR_PID;

    @TempDir
    Path tmp;

    /**
     * Close 1 of pool p, two children. c/0: the parent's request (seq 3) was made 5 ms before the close started
     * and drained after its CloseStarted. c/1: the parent's CAS (seq 3) stamped 0.6 ms into the close, the child's
     * answer (seq 4) stamped 0.4 ms into it (the parent was preempted between its CAS and its stamp); both
     * before the broadcast at +1 ms.
     */
    private long closeStart;

    private Path lateDrainedJournal() {
        Path dir = tmp.resolve("journal");
        try (ScenarioJournal j = new ScenarioJournal(dir)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "c", 2);
            ScenarioJournal.Child a = p.child(0);
            ScenarioJournal.Child b = p.child(1);
            j.advanceMillis(10);
            long requestMadeAt = j.now();
            j.advanceMillis(5);
            closeStart = j.now();
            ScenarioJournal.Close c = p.close("leak", 0);
            j.append(new MailboxTransition(requestMadeAt, PARENT, "p", 0, "c", 0, ++a.seq, MailboxStates.IDLE,
                    MailboxStates.CONTROL_REQUEST, "PARENT", PARENT));
            a.state = MailboxStates.CONTROL_REQUEST;
            j.append(new MailboxTransition(closeStart + 600_000, PARENT, "p", 0, "c", 1, ++b.seq, MailboxStates.IDLE,
                    MailboxStates.CONTROL_REQUEST, "PARENT", PARENT));
            j.append(new MailboxTransition(closeStart + 400_000, PARENT, "p", 0, "c", 1, ++b.seq,
                    MailboxStates.CONTROL_REQUEST, MailboxStates.CONTROL_DONE, "CHILD", b.pid));
            b.state = MailboxStates.CONTROL_DONE;
            j.advanceMillis(1 - (j.now() - closeStart) / 1e6);
            c.broadcast();
            a.transition("CHILD", a.pid, MailboxStates.CONTROL_DONE);
            c.exits(a, 1, 0);
            c.exits(b, 1, 0);
            c.complete();
        }
        return dir;
    }

    @Test
    void showPicksTheStateAtCloseStartByTimeAndListsOnlyTransitionsFromTheStartOnInTimeOrder() {
        Path dir = lateDrainedJournal();
        CliRun run = CliRun.of("show", dir.toString(), "1");
        assertEquals(0, run.exit(), run::toString);
        String a = child(run.out(), "c/0");
        assertTrue(a.contains("state at close start: CONTROL_REQUEST (seq 3, PARENT pid 900 at -0.005 s)"), a);
        List<Long> duringA = seqsDuring(a);
        assertEquals(List.of(4L), duringA, "only transitions at or after the close start: " + a);
        String b = child(run.out(), "c/1");
        assertTrue(b.contains("state at close start: IDLE (seq 2"), b);
        assertEquals(List.of(4L, 3L), seqsDuring(b), "in time order (seq 4 was stamped first): " + b);
    }

    @Test
    void showAsJsonCarriesTheSameTimeOrderedHistory() throws Exception {
        Path dir = lateDrainedJournal();
        CliRun run = CliRun.of("show", dir.toString(), "1", "--json");
        assertEquals(0, run.exit(), run::toString);
        JsonNode children = new ObjectMapper().readTree(run.out()).path("children");
        JsonNode a = children.get(0);
        assertEquals(3, a.path("stateAtStart").path("seq").asLong(), a.toString());
        assertEquals(1, a.path("transitions").size(), a.toString());
        JsonNode b = children.get(1).path("transitions");
        assertEquals(4, b.get(0).path("seq").asLong(), b.toString());
        assertTrue(b.get(0).path("timeNanos").asLong() <= b.get(1).path("timeNanos").asLong(), b.toString());
    }

    @Test
    void theTimelineDrawsEachStateFromTheTimeItsTransitionWasMade() throws Exception {
        Path dir = lateDrainedJournal();
        Path svg = tmp.resolve("close-1.svg");
        CliRun run = CliRun.of("timeline", dir.toString(), "1", "-o", svg.toString());
        assertEquals(0, run.exit(), run::toString);
        String text = Files.readString(svg);
        String laneA = lane(text, "c/0");
        List<String[]> barsA = bars(laneA);
        assertEquals("CONTROL_REQUEST", barsA.get(0)[1], "c/0 starts the close in its request: " + laneA);
        String laneB = lane(text, "c/1");
        List<String[]> barsB = bars(laneB);
        // IDLE from the start, CONTROL_DONE from +0.4 ms (the child's answer) to the reap; the parent's seq 3,
        // stamped later, never takes the word back to CONTROL_REQUEST.
        assertEquals(List.of("IDLE", "CONTROL_DONE"), barsB.stream().map(r -> r[1]).toList(), laneB);
        double x0 = Double.parseDouble(barsB.get(0)[0]);
        double xDone = Double.parseDouble(barsB.get(1)[0]);
        Matcher broadcast = Pattern.compile("class=\"broadcast\" d=\"M ([0-9.]+) ").matcher(laneB);
        assertTrue(broadcast.find(), laneB);
        double xBroadcast = Double.parseDouble(broadcast.group(1)) + 5; // the triangle's tip: c/1's at +1.02 ms
        double expected = x0 + 0.4 / 1.02 * (xBroadcast - x0);
        assertEquals(expected, xDone, 1.0, "CONTROL_DONE drawn from +0.4 ms: " + laneB);
    }

    @Test
    void auditReportsViolationsInTimeOrderWhileItChecksInJournalOrder() throws Exception {
        Path dir = tmp.resolve("journal");
        try (ScenarioJournal j = new ScenarioJournal(dir)) {
            ScenarioJournal.Pool p = j.pool("p", "sticky", "c", 2);
            ScenarioJournal.Child a = p.child(0);
            ScenarioJournal.Child b = p.child(1);
            j.advanceMillis(5);
            ScenarioJournal.Close c = p.close("leak", 0);
            c.broadcast();
            long published = j.now();
            j.advanceMillis(20);
            // b's ring drained first: its parent write 10 ms after the publication ...
            j.append(new MailboxTransition(published + 10_000_000, PARENT, "p", 0, "c", 1, ++b.seq, MailboxStates.IDLE,
                    MailboxStates.CONTROL_REQUEST, "PARENT", PARENT));
            b.state = MailboxStates.CONTROL_REQUEST;
            // ... a's later, although its parent write was made 5 ms after the publication
            j.append(new MailboxTransition(published + 5_000_000, PARENT, "p", 0, "c", 0, ++a.seq, MailboxStates.IDLE,
                    MailboxStates.CONTROL_REQUEST, "PARENT", PARENT));
            a.state = MailboxStates.CONTROL_REQUEST;
            c.exits(a, 1, 0);
            c.exits(b, 1, 0);
            c.complete();
        }
        CliRun run = CliRun.of("audit", dir.toString());
        assertEquals(AuditCommand.EXIT_VIOLATIONS, run.exit(), run::toString);
        List<String> lines = run.out().lines().filter(l -> l.startsWith("VIOLATION WRITE_AFTER_SHUTDOWN")).toList();
        assertEquals(2, lines.size(), run::toString);
        assertTrue(lines.get(0).contains("mailbox p c/0"), "the earlier violation first: " + run);
        assertTrue(lines.get(1).contains("mailbox p c/1"), run::toString);

        CliRun json = CliRun.of("audit", dir.toString(), "--json");
        long last = Long.MIN_VALUE;
        long lastIndex = Long.MIN_VALUE;
        boolean indexOrderDiffers = false;
        for (String line : json.out().lines().toList()) {
            JsonNode n = new ObjectMapper().readTree(line);
            if (n.has("rule")) {
                assertTrue(n.path("timeNanos").asLong() >= last, json::toString);
                last = n.path("timeNanos").asLong();
                indexOrderDiffers |= n.path("index").asLong() < lastIndex;
                lastIndex = n.path("index").asLong();
            }
        }
        assertTrue(indexOrderDiffers, "the journal indexes are cited as they are, out of time order: " + json);
    }

    /** A child's block of show's output. */
    private static String child(String out, String key) {
        int at = out.indexOf("child " + key + " ");
        assertTrue(at >= 0, out);
        int end = out.indexOf("\nchild ", at + 1);
        return out.substring(at, end < 0 ? out.length() : end);
    }

    /** The seq column of "state word during the close". */
    private static List<Long> seqsDuring(String child) {
        List<Long> seqs = new ArrayList<>();
        boolean in = false;
        for (String line : child.lines().toList()) {
            if (line.contains("seq        time")) {
                in = true;
            } else if (in && line.startsWith("    ") && !line.isBlank()) {
                seqs.add(Long.parseLong(line.trim().split("\\s+")[0]));
            }
        }
        return seqs;
    }

    private static String lane(String svg, String child) {
        int at = svg.indexOf("data-child=\"" + child + "\"");
        assertTrue(at >= 0, svg);
        return svg.substring(at, svg.indexOf("</g>", at));
    }

    /** {x, state} of each state bar of a lane, in drawing order. */
    private static List<String[]> bars(String lane) {
        List<String[]> out = new ArrayList<>();
        Matcher m = Pattern.compile("<rect class=\"state\" x=\"([0-9.]+)\"[^>]*><title>([A-Z_a-z]+)</title>").matcher(lane);
        while (m.find()) {
            out.add(new String[] {m.group(1), m.group(2)});
        }
        return out;
    }
}
