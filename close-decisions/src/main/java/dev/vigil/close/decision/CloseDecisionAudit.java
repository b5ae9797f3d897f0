package dev.vigil.close.decision;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.vigil.journal.BudgetSpent;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.EscalateNowRequested;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.EventType;
import dev.vigil.journal.HeartbeatSeen;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.ShutdownPublished;

/**
 * Re-runs the decisions of one close from its journaled inputs, with the same code the orchestrator ran live
 * ({@link ReapBudget}, {@link EscalationStep#plan}), and names every place where the journaled decision differs.
 * Feed it the close's events in journal order ({@link #accept}), then {@link #differences()}.
 *
 * <p>What is re-derived: the reap budget (built from CloseStarted's numbers at its time; progress = each ChildReaped,
 * ChildAcked and HeartbeatSeen at its time, each input first checked against the budget, as the engine does), so a
 * journaled BudgetSpent must come exactly when the re-derived budget is spent, with the same last progress, and never
 * while it still runs; no input may arrive after the budget ran out without a BudgetSpent before it; a close with
 * survivors must have spent its budget; escalation signals only after BudgetSpent, in the order of the plan of the
 * close's policy (term-then-kill; none under leak), or of {@link EscalationStep#escalateNowPlan} when the budget was
 * spent by the caller's escalate-now; a BudgetSpent for escalate-now needs the EscalateNowRequested input before it;
 * after an escalate-now that came while the close was already escalating, its next signal may come early (SIGKILL
 * without the rest of the grace), in the plan's order; an ack stamped by the child (ackNanos) cannot be earlier than
 * the shutdown published to it.
 */
public final class CloseDecisionAudit {
    /** The event kinds the audit reads. */
    public static final Set<EventType> KINDS = EnumSet.of(EventType.CLOSE_STARTED, EventType.SHUTDOWN_PUBLISHED,
            EventType.CHILD_ACKED, EventType.HEARTBEAT_SEEN, EventType.CHILD_REAPED, EventType.BUDGET_SPENT,
            EventType.ESCALATION_SENT, EventType.CLOSE_COMPLETED, EventType.ESCALATE_NOW_REQUESTED);

    private final CloseStarted started;
    private final ReapBudget budget;
    private final List<String> differences = new ArrayList<>();
    private final Set<String> children = new LinkedHashSet<>();
    private final Set<String> reaped = new LinkedHashSet<>();
    private final Map<String, Long> publishedAt = new HashMap<>();
    private BudgetSpent spent;
    private List<EscalationStep> plan = List.of();
    private int signalsSeen;
    private int lastSignal = -1;
    private boolean completed;
    /** The caller's escalate-now input of this close, if journaled. */
    private EscalateNowRequested escalateNowRequested;
    /** Set by the first BudgetSpent or HeartbeatSeen: the close was run by an engine that journals its decisions. */
    private boolean armed;

    public CloseDecisionAudit(CloseStarted started) {
        this.started = started;
        this.budget = ReapBudget.of(started.windowNanos(), started.hardCapNanos(), started.fixedBudgetNanos(),
                started.timeNanos());
    }

    public long closeId() {
        return started.closeId();
    }

    /** Folds in the next event of this close (events of other closes and other kinds are ignored). */
    public void accept(JournalEvent e) {
        if (e.closeId() != started.closeId() || completed) {
            return;
        }
        switch (e.type()) {
            case SHUTDOWN_PUBLISHED -> {
                ShutdownPublished p = (ShutdownPublished) e;
                children.add(key(p.group(), p.index()));
                publishedAt.putIfAbsent(key(p.group(), p.index()), p.timeNanos());
            }
            case CHILD_ACKED -> {
                ChildAcked a = (ChildAcked) e;
                String k = key(a.group(), a.index());
                Long published = publishedAt.get(k);
                if (published != null && a.ackNanos() != 0 && a.ackNanos() < published - SAME_INSTANT_NANOS) {
                    differ("child " + k + " ack stamped at " + at(a.ackNanos()) + ", before the shutdown was published to it at "
                            + at(published));
                }
                progress(e, "ack of child " + k);
            }
            case HEARTBEAT_SEEN -> {
                armed = true;
                progress(e, "heartbeat of child " + key(((HeartbeatSeen) e).group(), ((HeartbeatSeen) e).index()));
            }
            case CHILD_REAPED -> {
                ChildReaped r = (ChildReaped) e;
                String k = key(r.group(), r.index());
                children.add(k);
                progress(e, "reap of child " + k);
                reaped.add(k);
            }
            case ESCALATE_NOW_REQUESTED -> {
                if (escalateNowRequested == null) {
                    escalateNowRequested = (EscalateNowRequested) e;
                }
            }
            case BUDGET_SPENT -> budgetSpent((BudgetSpent) e);
            case ESCALATION_SENT -> escalation((EscalationSent) e);
            case CLOSE_COMPLETED -> completed((CloseCompleted) e);
            default -> {
                // not an input of a decision
            }
        }
    }

    /** Tolerance for comparing a child's own stamp with the orchestrator's (same clock, different threads). */
    private static final long SAME_INSTANT_NANOS = 1_000_000;

    private void progress(JournalEvent e, String what) {
        if (spent != null) {
            return; // after the spend nothing counts
        }
        if (unreaped() > 0 && budget.expired(e.timeNanos())) {
            differ("the " + what + " at " + at(e.timeNanos()) + " came after the re-derived budget ("
                    + budget.kind() + ", last progress " + at(budget.lastProgressNanos())
                    + ") had run out, and no BudgetSpent before it");
            spent = new BudgetSpent(e.timeNanos(), 0, started.poolId(), started.closeId(), budget.kind(), "derived",
                    budget.lastProgressNanos(), unreaped()); // report once
            return;
        }
        budget.progress(e.timeNanos());
    }

    private void budgetSpent(BudgetSpent b) {
        armed = true;
        if (spent != null) {
            differ("a second BudgetSpent at " + at(b.timeNanos()));
            return;
        }
        spent = b;
        boolean escalateNow = BudgetSpent.REASON_ESCALATE_NOW.equals(b.reason());
        if (escalateNow && escalateNowRequested == null) {
            differ("BudgetSpent at " + at(b.timeNanos()) + " gives reason escalate-now, but no EscalateNowRequested of"
                    + " this close came before it");
        }
        if (!escalateNow && !budget.expired(b.timeNanos())) {
            differ("BudgetSpent at " + at(b.timeNanos()) + " but the re-derived budget (" + budget.kind()
                    + ", last progress " + at(budget.lastProgressNanos()) + ") runs until "
                    + at(b.timeNanos() + budget.remainingNanos(b.timeNanos())));
        }
        if (!escalateNow && b.lastProgressNanos() != budget.lastProgressNanos()) {
            differ("BudgetSpent names last progress at " + at(b.lastProgressNanos()) + ", the inputs give "
                    + at(budget.lastProgressNanos()));
        }
        if (b.survivors() != unreaped()) {
            differ("BudgetSpent counts " + b.survivors() + " survivors, the inputs leave " + unreaped() + " unreaped");
        }
        plan = escalateNow ? EscalationStep.escalateNowPlan(0)
                : EscalationStep.plan(EscalationPolicy.parse(started.escalation()), 0);
    }

    private void escalation(EscalationSent s) {
        if (spent == null) {
            differ("EscalationSent signal " + s.signal() + " to child " + key(s.group(), s.index()) + " at "
                    + at(s.timeNanos()) + " before the budget was spent");
            return;
        }
        if (s.signal() != lastSignal) {
            if (signalsSeen >= plan.size() || plan.get(signalsSeen).signal() != s.signal()) {
                differ("EscalationSent signal " + s.signal() + " at " + at(s.timeNanos()) + " is not step "
                        + (signalsSeen + 1) + " of the plan " + plan);
            }
            signalsSeen++;
            lastSignal = s.signal();
        }
    }

    private void completed(CloseCompleted c) {
        completed = true;
        int survivors = unreaped();
        if (survivors > 0 && spent == null) {
            differ(survivors + " children not reaped but the budget was never spent (re-derived budget runs until "
                    + at(c.timeNanos() + budget.remainingNanos(c.timeNanos())) + ")");
        }
        if (c.survivors() != survivors) {
            differ("CloseCompleted counts " + c.survivors() + " survivors, the inputs leave " + survivors);
        }
    }

    private int unreaped() {
        int n = 0;
        for (String k : children) {
            if (!reaped.contains(k)) {
                n++;
            }
        }
        return n;
    }

    /** True once the close's CloseCompleted was folded in. */
    public boolean isComplete() {
        return completed;
    }

    /**
     * Where the journaled decisions differ from the re-derived ones, one readable line each; empty when they agree.
     * Empty too for a close that shows no journaled decision (no BudgetSpent, no HeartbeatSeen): a journal written
     * before the close engine journaled its decisions has nothing to re-run them against. (A close of the engine
     * whose children all exited early looks the same; its outcome is still checked against the live report.)
     */
    public List<String> differences() {
        return armed ? List.copyOf(differences) : List.of();
    }

    private void differ(String what) {
        differences.add(what);
    }

    private String at(long nanos) {
        return String.format(Locale.ROOT, "%+.3f s", (nanos - started.timeNanos()) / 1e9);
    }

    private static String key(String group, int index) {
        return group + "/" + index;
    }
}
