package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.journal.JournalReader;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 10, "What it must show": 16 C and Java children answer back-to-back controls; every transition of every
 * child is in the journal, also when the orchestrator (a separate process, {@link RingStressMain}) is SIGSTOPped
 * for 2 s in the middle, and the audit is clean. The same load with flow control off (the lapping ring; a small ring
 * for both runs so the difference shows in seconds; 8 children are enough there) loses transitions, journaled as overruns whose ranges are
 * exactly the missing sequence numbers, and the audit accepts them (no false LOST_UPDATE inside the gaps).
 */
@Timeout(120)
class RingFlowControlStressTest {
    static final int RING = 16;

    @TempDir
    Path work;

    @Test
    void sixteenBusyChildrenLoseNoTransitionEvenWithTheOrchestratorStoppedForTwoSeconds() throws Exception {
        Path journal = work.resolve("flow-controlled");
        String out = runStress(journal, true, 10_000, 4_000, 8);
        Ledger ledger = Ledger.read(journal);
        assertEquals(16, ledger.children(), ledger + "\n" + out);
        ledger.assertExact();
        assertEquals(0, ledger.lost(), "no transition lost with a live (or stopped, then resumed) orchestrator: " + ledger);
        assertTrue(ledger.transitions() > 16 * 30, "the children were busy: " + ledger + "\n" + out);
        Launchers.Result audit = Launchers.replay(work, 60, "audit", journal.toString());
        assertEquals(0, audit.exitCode(), audit.toString());
        System.out.println("ring stress, flow control on, ring " + RING + ", SIGSTOP 2 s: " + ledger);
    }

    @Test
    void withoutFlowControlTheSameLoadLosesTransitionsAndTheAuditAcceptsTheOverruns() throws Exception {
        Path journal = work.resolve("lapping");
        String out = runStress(journal, false, 3_000, -1, 4);
        Ledger ledger = Ledger.read(journal);
        ledger.assertExact();
        assertTrue(ledger.lost() > 0, "the lapping ring loses transitions under this load: " + ledger + "\n" + out);
        Launchers.Result audit = Launchers.replay(work, 60, "audit", journal.toString());
        assertEquals(0, audit.exitCode(), "overruns are accepted, no LOST_UPDATE inside their gaps: " + audit);
        System.out.println("ring stress, flow control off, ring " + RING + ": " + ledger);
    }

    /** Runs {@link RingStressMain} with {@code perKind} C and Java children; SIGSTOPs it for 2 s {@code stopAfterMillis} after READY (negative: never). */
    private String runStress(Path journal, boolean flowControl, long millis, long stopAfterMillis, int perKind) throws Exception {
        Path root = Launchers.ROOT;
        String cp = root.resolve("orchestrator/target/vigil-orchestrator.jar") + ":"
                + Path.of(RingStressMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + root.resolve("orchestrator/target/jvm.options"), "-Dvigil.native.dir=" + root.resolve("native/build"),
                "-Dvigil.ring.capacity=" + RING, "-Dvigil.ring.flowControl=" + flowControl, "-cp", cp,
                RingStressMain.class.getName(), journal.toString(), Long.toString(millis), Integer.toString(perKind), Integer.toString(perKind)));
        Process main = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        StringBuilder output = new StringBuilder();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(main.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.startsWith("READY ")) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                ready.completeExceptionally(e);
            }
            ready.completeExceptionally(new IllegalStateException("ended before READY"));
        });
        reader.start();
        try {
            ready.get(60, TimeUnit.SECONDS);
            if (stopAfterMillis >= 0) {
                Thread.sleep(stopAfterMillis);
                signal("STOP", main.pid());
                Thread.sleep(2_000);
                signal("CONT", main.pid());
            }
            assertTrue(main.waitFor(60, TimeUnit.SECONDS), "stress orchestrator did not finish");
            reader.join(5_000);
            String text;
            synchronized (output) {
                text = output.toString();
            }
            assertEquals(0, main.exitValue(), text);
            assertTrue(text.contains("CONTROLS "), text);
            return text;
        } finally {
            if (main.isAlive()) {
                signal("CONT", main.pid());
                main.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -" + name + " " + pid);
    }

    /** Per child: the seqs journaled as transitions and those journaled as lost (RingOverrun ranges). */
    record Ledger(Map<String, List<Long>> seen, Map<String, List<long[]>> lostRanges) {
        static Ledger read(Path journal) {
            Map<String, List<Long>> seen = new TreeMap<>();
            Map<String, List<long[]>> lost = new TreeMap<>();
            try (JournalReader reader = JournalReader.open(journal)) {
                reader.fromStart().readAll((index, event) -> {
                    for (MailboxTransition t : MailboxTransitionBatch.expand(event)) {
                        seen.computeIfAbsent(t.group() + "/" + t.index(), k -> new ArrayList<>()).add(t.seq());
                    }
                    if (event instanceof RingOverrun o) {
                        lost.computeIfAbsent(o.group() + "/" + o.index(), k -> new ArrayList<>())
                                .add(new long[] {o.firstLostSeq(), o.lastLostSeq()});
                    }
                    return true;
                });
            }
            return new Ledger(seen, lost);
        }

        int children() {
            return seen.size();
        }

        long transitions() {
            return seen.values().stream().mapToLong(List::size).sum();
        }

        long lost() {
            return lostRanges.values().stream().flatMap(List::stream).mapToLong(r -> r[1] - r[0] + 1).sum();
        }

        /** Every seq 1..max of every child is either journaled once or inside exactly one overrun range. */
        void assertExact() {
            for (Map.Entry<String, List<Long>> e : seen.entrySet()) {
                TreeMap<Long, Integer> count = new TreeMap<>();
                for (long seq : e.getValue()) {
                    count.merge(seq, 1, Integer::sum);
                }
                for (long[] r : lostRanges.getOrDefault(e.getKey(), List.of())) {
                    for (long seq = r[0]; seq <= r[1]; seq++) {
                        count.merge(seq, 1, Integer::sum);
                    }
                }
                long max = count.lastKey();
                for (long seq = 1; seq <= max; seq++) {
                    assertEquals(1, count.getOrDefault(seq, 0), "child " + e.getKey() + " seq " + seq
                            + " must be journaled or counted lost exactly once (max " + max + ")");
                }
            }
        }

        @Override
        public String toString() {
            return children() + " children, " + transitions() + " transitions journaled, " + lost() + " lost in "
                    + lostRanges.values().stream().mapToInt(List::size).sum() + " overruns";
        }
    }
}
