package dev.vigil.replay;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.ShutdownPublished;
import dev.vigil.journal.SurvivorDiagnosed;
import dev.vigil.journal.SurvivorStacks;

/**
 * What the journal says about one child during one close: its state word when the close began,
 * the transitions during the close (kept only for the close being shown), and each close step that
 * reached it. Filled by {@link CloseReconstruction}; read-only for everyone else.
 */
public final class ChildHistory {
    private final ChildKey key;
    private int pid;
    private final String kind;
    private final long mailboxOffset;
    MailboxMapFile.Mailbox finalWords;
    /** Why the map file shows no words for it (no mailbox there, or another child's now), or null. */
    String mapNote;
    private final long spawnEpoch;
    /** When the close started: transitions stamped before it are its starting state, the rest happened during it. */
    private final long closeStartNanos;
    private MailboxTransition stateAtStart;
    private final List<MailboxTransition> transitions;
    /** Whether {@link #transitions} was appended out of time order (rings drain late): sorted when read. */
    private boolean unsorted;
    MailboxTransition lastTransition;
    ShutdownPublished published;
    ChildAcked acked;
    final List<EscalationSent> escalations = new ArrayList<>(2);
    boolean escalatedBeforeReap;
    ChildReaped reaped;
    SurvivorDiagnosed diagnosed;
    SurvivorStacks stacks;
    dev.vigil.journal.ChildOutputTail stderrTail;
    MailboxReleased released;
    MailboxTransition shutdownOverwrite;

    /**
     * @param recent the mailbox's last transitions journaled before the close started, in journal order: by
     *               their own times they are its starting state or (stamped at or after the start, journaled
     *               before the CloseStarted) already part of the close
     */
    ChildHistory(ChildKey key, int pid, String kind, long mailboxOffset, long spawnEpoch, long closeStartNanos,
            Iterable<MailboxTransition> recent, boolean keepTransitions) {
        this.spawnEpoch = spawnEpoch;
        this.key = key;
        this.pid = pid;
        this.kind = kind;
        this.mailboxOffset = mailboxOffset;
        this.closeStartNanos = closeStartNanos;
        this.transitions = keepTransitions ? new ArrayList<>() : null;
        for (MailboxTransition t : recent) {
            transition(t);
        }
    }

    /**
     * Folds in one transition of its mailbox, in journal order. The journal holds transitions in the order the
     * ring drainer read them, which can be well after they were made: whether one belongs to the close (at or
     * after its start) or is its starting state is decided by the writer's own stamp, never by where it sits in
     * the journal.
     */
    void transition(MailboxTransition t) {
        if (lastTransition == null || t.timeNanos() >= lastTransition.timeNanos() || t.seq() > lastTransition.seq()) {
            lastTransition = t;
        }
        if (t.timeNanos() < closeStartNanos) {
            if (stateAtStart == null || t.timeNanos() >= stateAtStart.timeNanos()) {
                stateAtStart = t;
            }
            return;
        }
        if (transitions != null) {
            if (!transitions.isEmpty() && t.timeNanos() < transitions.get(transitions.size() - 1).timeNanos()) {
                unsorted = true;
            }
            transitions.add(t);
        }
    }

    void learnPid(int p) {
        if (pid <= 0) {
            pid = p;
        }
    }

    public ChildKey key() {
        return key;
    }

    public int pid() {
        return pid;
    }

    public String kind() {
        return kind;
    }

    /** Offset of its mailbox in the mailbox map file, or -1 (no mailbox, or not journaled). */
    public long mailboxOffset() {
        return mailboxOffset;
    }

    /** The mailbox as the map file holds it (post-mortem, {@code --map}), or null when not read. */
    public MailboxMapFile.Mailbox finalWords() {
        return finalWords;
    }

    /** With {@code --map}: why the map file shows no words for this child, in one line; else null. */
    public String mapNote() {
        return mapNote;
    }

    /** Its mailbox's spawn epoch as ChildSpawned journaled it (0: not known). */
    public long spawnEpoch() {
        return spawnEpoch;
    }

    /**
     * Reads this child's words out of the map file (once), or the one line saying why there are none. A mailbox the
     * journal says was released is not read: the map's remove leaves a freed record's bytes in place until the record
     * is reused, and they used to print as if the mailbox were still allocated.
     */
    void readFrom(MailboxMapFile map) {
        if (finalWords != null || mapNote != null || mailboxOffset < 0) {
            return;
        }
        if (released != null) {
            mapNote = MailboxMapFile.releasedNote(mailboxOffset);
            return;
        }
        MailboxMapFile.Finding f = map.readFor(mailboxOffset, pid, spawnEpoch);
        finalWords = f.mailbox();
        mapNote = f.note();
    }

    /**
     * The latest transition of its mailbox stamped before the close started (wherever the journal holds it), or
     * null if none was journaled.
     */
    public MailboxTransition stateAtStart() {
        return stateAtStart;
    }

    /**
     * Transitions stamped at or after the close's start, in time order (equal times in journal order); empty
     * unless this close was reconstructed in detail.
     */
    public List<MailboxTransition> transitions() {
        if (transitions == null) {
            return List.of();
        }
        if (unsorted) {
            transitions.sort(java.util.Comparator.comparingLong(MailboxTransition::timeNanos)); // stable
            unsorted = false;
        }
        return Collections.unmodifiableList(transitions);
    }

    /** The last transition seen up to now (during or before the close; the latest by time or seq), or null. */
    public MailboxTransition lastTransition() {
        return lastTransition;
    }

    public ShutdownPublished published() {
        return published;
    }

    public ChildAcked acked() {
        return acked;
    }

    /** The first escalation signal sent to this child in this close, or null. */
    public EscalationSent escalation() {
        return escalations.isEmpty() ? null : escalations.get(0);
    }

    /** Every escalation signal sent to this child in this close before its reap, in order (SIGTERM, then SIGKILL). */
    public List<EscalationSent> escalations() {
        return Collections.unmodifiableList(escalations);
    }

    /** The signal that ended it (from its reap), or 0 when it exited or was not reaped. */
    public int endingSignal() {
        return reaped == null ? 0 : Math.max(0, reaped.signal());
    }

    public ChildReaped reaped() {
        return reaped;
    }

    /** The last lines of its stderr log file, journaled by the close because it failed, or null. */
    public dev.vigil.journal.ChildOutputTail stderrTail() {
        return stderrTail;
    }

    /** Its own stacks, captured before the first escalation signal, or null. */
    public SurvivorStacks stacks() {
        return stacks;
    }

    public SurvivorDiagnosed diagnosed() {
        return diagnosed;
    }

    public MailboxReleased released() {
        return released;
    }

    /** Legacy mode: the transition that replaced a SHUTDOWN the closer had written, or null. */
    public MailboxTransition shutdownOverwrite() {
        return shutdownOverwrite;
    }

    /** This child's line of the close report, by the rules the live CloseReport follows. */
    public ChildOutcome outcome() {
        String diagnosis = diagnosed == null ? null : diagnosed.diagnosis();
        String evidence = diagnosed == null ? null : diagnosed.evidence();
        String outcome = CloseReport.ChildOutcome.of(reaped != null, escalatedBeforeReap,
                reaped == null ? 0 : reaped.signal()).name();
        if (reaped == null) {
            return new ChildOutcome(key.group(), key.index(), pid, kind, outcome, -1, 0, -1, diagnosis, evidence);
        }
        return new ChildOutcome(key.group(), key.index(), pid, kind, outcome, reaped.exitCode(), reaped.signal(),
                reaped.sinceBroadcastNanos(), diagnosis, evidence);
    }
}
