package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.Cancellation;
import dev.vigil.child.ChildContext;
import dev.vigil.child.ChildHandler;
import dev.vigil.child.ChildRuntime;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the real journal: children on threads serve control commands while a background drainer journals
 * their rings every millisecond (on a loaded machine rings may lap between drains: that is what overruns are
 * for); one mailbox is left undrained through a burst so its ring surely laps. Read back, every mailbox's
 * transitions are each seq once, chained (from = previous to), and every gap is covered by a RingOverrun;
 * transitions + lost seqs = the final seq of the state word.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JournaledTransitionsTest {
    static final int MAILBOXES = 4;

    @TempDir
    Path dir;

    @Test
    void everyTransitionIsJournaledExactlyOnceOrNamedByAnOverrun() throws Exception {
        MappedByteBuffer file = MailboxFiles.mapSlots(dir.resolve("slots"), MAILBOXES + 1);
        List<MailboxHandle> handles = new ArrayList<>();
        List<Thread> children = new ArrayList<>();
        AtomicInteger exits = new AtomicInteger();
        Path journalDir = dir.resolve("journal");
        try (JournalWriter journal = JournalWriter.open(journalDir); RingDrainer drainer = new RingDrainer(journal::append)) {
            for (int i = 0; i < MAILBOXES; i++) {
                MailboxHandle handle = MailboxFiles.formatted(dir, file, i, i % 2 == 0 ? ProtocolMode.STICKY : ProtocolMode.LEGACY);
                handle.journalCommandsTo(journal::append, () -> 0L);
                handles.add(handle);
                drainer.register(handle);
                Thread child = new Thread(() -> {
                    ChildRuntime runtime = new ChildRuntime(handle.mailbox(), handle.mode(), 1000, ChildRuntime.Options.inProcess(() -> false));
                    if (runtime.run(Echo::new, new ChildContext(null, handle.mailbox(), 1000)) == 0) {
                        exits.incrementAndGet();
                    }
                }, "child-" + i);
                child.start();
                children.add(child);
            }
            for (MailboxHandle handle : handles) { // legacy: a command placed before INIT_READY would be overwritten
                assertEquals(InitOutcome.READY, handle.awaitInit(Duration.ofSeconds(10)));
            }
            drainer.start(Duration.ofMillis(1), () -> 0L);
            for (int round = 0; round < 500; round++) {
                for (MailboxHandle handle : handles) {
                    assertEquals(round, handle.control(1, round, Duration.ofSeconds(10)).value());
                }
            }
            // an undrained mailbox whose ring laps: 3 ring lengths of transitions before its first drain
            MailboxHandle burst = MailboxFiles.formatted(dir, file, MAILBOXES, ProtocolMode.STICKY);
            MappedMailbox words = burst.mailbox();
            long word = words.stateAcquire();
            for (int i = 0; i < 3 * MailboxDescriptor.DEFAULT_RING_CAPACITY; i++) {
                word = words.casTransition(word, i % 2 == 0 ? MailboxState.TASK_READY : MailboxState.IDLE, WriterRole.PARENT, 1);
            }
            handles.add(burst);
            for (MailboxHandle handle : handles.subList(0, MAILBOXES)) {
                handle.publishShutdown(1);
            }
            for (Thread child : children) {
                child.join(TimeUnit.SECONDS.toMillis(20));
            }
            assertEquals(MAILBOXES, exits.get());
            drainer.stop();
            for (MailboxHandle handle : handles) {
                drainer.drainFinal(handle, 0);
            }
            journal.flush();
        }

        Map<Integer, List<MailboxTransition>> transitions = new HashMap<>();
        Map<Integer, List<RingOverrun>> overruns = new HashMap<>();
        try (JournalReader reader = JournalReader.open(journalDir)) {
            reader.fromStart().readAll((index, event) -> {
                for (MailboxTransition t : MailboxTransitionBatch.expand(event)) {
                    transitions.computeIfAbsent(t.index(), k -> new ArrayList<>()).add(t);
                }
                if (event instanceof RingOverrun o) {
                    overruns.computeIfAbsent(o.index(), k -> new ArrayList<>()).add(o);
                }
                return true;
            });
        }
        for (MailboxHandle handle : handles) {
            int index = handle.id().index();
            List<MailboxTransition> ts = transitions.getOrDefault(index, List.of());
            List<RingOverrun> lost = overruns.getOrDefault(index, List.of());
            long finalSeq = MailboxDescriptor.seq(handle.stateWord());
            long lostSeqs = lost.stream().mapToLong(o -> o.lastLostSeq() - o.firstLostSeq() + 1).sum();
            // no shutdown races in this run, so legacy mailboxes have unique seqs too: one check for both modes
            assertEquals(finalSeq, ts.size() + lostSeqs, "mailbox " + index + " " + handle.mode() + ": transitions + lost = final seq");
            long expected = 1;
            int previousTo = -1;
            int overrunIndex = 0;
            for (MailboxTransition t : ts) {
                if (t.seq() != expected) {
                    RingOverrun gap = lost.get(overrunIndex++);
                    assertEquals(expected, gap.firstLostSeq(), "gap starts where the chain broke");
                    assertEquals(t.seq() - 1, gap.lastLostSeq());
                } else if (previousTo >= 0) {
                    assertEquals(previousTo, t.fromState(), "chain at seq " + t.seq());
                }
                previousTo = t.toState();
                expected = t.seq() + 1;
            }
            if (index == MAILBOXES) {
                assertFalse(lost.isEmpty(), "the lapped ring was journaled as an overrun");
            } else {
                assertTrue(finalSeq >= 3 * 500, "mailbox " + index + " finalSeq=" + finalSeq);
            }
        }
    }

    static final class Echo implements ChildHandler {
        @Override
        public long onControl(int opcode, long argument, Cancellation cancellation) {
            return argument;
        }
    }
}
