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
    private final MailboxTransition stateAtStart;
    private final List<MailboxTransition> transitions;
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

    ChildHistory(ChildKey key, int pid, String kind, long mailboxOffset, MailboxTransition stateAtStart,
            boolean keepTransitions) {
        this.key = key;
        this.pid = pid;
        this.kind = kind;
        this.mailboxOffset = mailboxOffset;
        this.stateAtStart = stateAtStart;
        this.lastTransition = stateAtStart;
        this.transitions = keepTransitions ? new ArrayList<>() : null;
    }

    void transition(MailboxTransition t) {
        lastTransition = t;
        if (transitions != null) {
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

    /** The last transition of its mailbox before the close started, or null if none was journaled. */
    public MailboxTransition stateAtStart() {
        return stateAtStart;
    }

    /** Transitions during the close; empty unless this close was reconstructed in detail. */
    public List<MailboxTransition> transitions() {
        return transitions == null ? List.of() : Collections.unmodifiableList(transitions);
    }

    /** The last transition seen up to now (during or before the close), or null. */
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
