package dev.vigil.close;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CommandCompleted;
import dev.vigil.journal.CommandFailed;
import dev.vigil.journal.CommandIssued;
import dev.vigil.journal.CommandTimedOut;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalException;
import dev.vigil.journal.JournalGap;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.RingOverrun;
import dev.vigil.journal.ShutdownPublished;
import dev.vigil.mailbox.MailboxState;

/**
 * The orchestrator's way into its journal: appends to the {@link JournalWriter} and remembers each
 * child's last few events, so a survivor's diagnosis can name them without reading the journal back.
 * Thread-safe.
 */
public final class PoolJournal implements CloseJournal {
    /** How many events per child are kept for evidence. */
    public static final int TAIL = 6;

    private final JournalWriter writer;
    private final int orchestratorPid;
    /** The events themselves: described only when a diagnosis asks (most closes never do). */
    private final Map<ChildKey, Deque<JournalEvent>> tails = new ConcurrentHashMap<>();
    private final Map<ChildKey, CommandIssued> open = new ConcurrentHashMap<>();

    /**
     * Which child an event is about: its parts as they are, no string built per event (a close appends a few events per
     * child, on the close engine's thread while the children exit; the pool id and group are the same String each time).
     */
    private record ChildKey(String poolId, String group, int index) {
    }

    public PoolJournal(JournalWriter writer) {
        this.writer = writer;
        this.orchestratorPid = (int) ProcessHandle.current().pid();
    }

    @Override
    public int orchestratorPid() {
        return orchestratorPid;
    }

    public JournalWriter writer() {
        return writer;
    }

    /**
     * Appends {@code event}; never throws for a journal that cannot be written (a full disk, a
     * stalled appender): the writer then counts what it did not write ({@link #gap()}), and the
     * caller goes on with its safety duties (closes still broadcast, reap, escalate). A memory fault of the caller's
     * own raised inside it (a mailbox map cut short) goes on to the caller once the event is written
     * ({@link JournalWriter#append}).
     */
    @Override
    public void append(JournalEvent event) {
        try {
            writer.append(event);
        } catch (JournalException notWritten) {
            // The writer recorded the event as the start of its gap and logged it once.
        }
        ChildKey key = childKey(event);
        if (event instanceof CommandIssued c) {
            open.put(key, c);
        } else if (event instanceof CommandCompleted c) {
            open.computeIfPresent(key, (k, issued) -> issued.commandId() == c.commandId() ? null : issued);
        } else if (event instanceof CommandFailed c) {
            open.computeIfPresent(key, (k, issued) -> issued.commandId() == c.commandId() ? null : issued);
        } else if (event instanceof ChildReaped) {
            open.remove(key);
        }
        if (key != null) {
            Deque<JournalEvent> tail = tails.computeIfAbsent(key, k -> new ArrayDeque<>());
            synchronized (tail) {
                if (event instanceof MailboxTransitionBatch batch) { // its last transitions, each as a tail event
                    tail.addAll(batch.transitions(Math.max(0, batch.size() - TAIL), batch.size()));
                } else {
                    tail.addLast(event);
                }
                while (tail.size() > TAIL) {
                    tail.removeFirst();
                }
            }
        }
    }

    /**
     * Waits, at most {@code timeout}, until everything appended so far is in the journal or counted
     * as not written; returns the journal's gap, if any. Never throws.
     */
    public Optional<JournalGap> flush(Duration timeout) {
        try {
            writer.flush(timeout);
        } catch (JournalException stalled) {
            // A stalled appender: what it still holds is reported through the gap once it fails.
        }
        return writer.gap();
    }

    @Override
    public void hurry() {
        writer.wakeAppender();
    }

    @Override
    public void holdWakes() {
        writer.holdWakesOf(Thread.currentThread());
    }

    @Override
    public long heldNanos() {
        return writer.heldWakeNanos();
    }

    /** Where the journal stops being complete, or empty. */
    public Optional<JournalGap> gap() {
        return writer.gap();
    }

    /** The child's last events, oldest first. */
    @Override
    public List<String> lastEvents(String poolId, String group, int index) {
        Deque<JournalEvent> tail = tails.get(new ChildKey(poolId, group, index));
        if (tail == null) {
            return List.of();
        }
        List<JournalEvent> events;
        synchronized (tail) {
            events = new ArrayList<>(tail);
        }
        List<String> out = new ArrayList<>(events.size());
        for (JournalEvent e : events) {
            out.add(describe(e));
        }
        return out;
    }

    @Override
    public CommandIssued openCommand(String poolId, String group, int index) {
        return open.get(new ChildKey(poolId, group, index));
    }

    /** Drops the tails of a pool's child once it is gone for good. */
    public void forget(String poolId, String group, int index) {
        ChildKey key = new ChildKey(poolId, group, index);
        tails.remove(key);
        open.remove(key);
    }

    private static ChildKey childKey(JournalEvent e) {
        String group;
        int index;
        if (e instanceof MailboxTransition t) {
            group = t.group();
            index = t.index();
        } else if (e instanceof MailboxTransitionBatch t) {
            group = t.group();
            index = t.index();
        } else if (e instanceof CommandIssued c) {
            group = c.group();
            index = c.index();
        } else if (e instanceof CommandCompleted c) {
            group = c.group();
            index = c.index();
        } else if (e instanceof CommandTimedOut c) {
            group = c.group();
            index = c.index();
        } else if (e instanceof ShutdownPublished s) {
            group = s.group();
            index = s.index();
        } else if (e instanceof ChildAcked a) {
            group = a.group();
            index = a.index();
        } else if (e instanceof EscalationSent s) {
            group = s.group();
            index = s.index();
        } else if (e instanceof RingOverrun r) {
            group = r.group();
            index = r.index();
        } else if (e instanceof ChildSpawned s) {
            group = s.group();
            index = s.index();
        } else if (e instanceof InFlightSettled s) {
            group = s.group();
            index = s.index();
        } else if (e instanceof ChildReaped r) {
            group = r.group();
            index = r.index();
        } else if (e instanceof CommandFailed c) {
            group = c.group();
            index = c.index();
        } else {
            return null;
        }
        return new ChildKey(e.poolId(), group, index);
    }

    private static String describe(JournalEvent e) {
        if (e instanceof MailboxTransition t) {
            return "transition " + MailboxState.name(t.fromState()) + "->" + MailboxState.name(t.toState()) + " by " + t.writer()
                    + " seq=" + t.seq();
        } else if (e instanceof CommandIssued c) {
            return "command issued opcode=" + c.opcode() + " id=" + c.commandId();
        } else if (e instanceof CommandCompleted c) {
            return "command completed id=" + c.commandId() + " error=" + c.errorCode();
        } else if (e instanceof CommandTimedOut c) {
            return "command timed out id=" + c.commandId() + " state=" + MailboxState.name(c.lastState());
        } else if (e instanceof ShutdownPublished s) {
            return "shutdown published channel=" + s.channel() + " cas=" + (s.casWon() ? "won" : "lost");
        } else if (e instanceof InFlightSettled s) {
            return "in-flight " + s.operation() + " " + s.outcome();
        } else if (e instanceof RingOverrun r) {
            return "ring overrun seq=" + r.firstLostSeq() + ".." + r.lastLostSeq();
        }
        return e.type().name().toLowerCase(java.util.Locale.ROOT);
    }
}
