package dev.vigil.close.decision;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildRestarted;
import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalEvent;

/**
 * Re-runs the restart decisions of every pool from the journal, with the code the pool ran live
 * ({@link RestartIntensity}), and names each exit whose journaled decision differs. Feed it a whole journal in order
 * ({@link #accept}); it keeps state only for pools started and not yet closed.
 *
 * <p>What is checked, per pool (reset by its PoolStarted, forgotten at its CloseCompleted): each ChildExited under the
 * {@code restart} policy (layout version 2) is re-decided at its own time with the settings it carries, in journal
 * order (the pool journals an exit and decides it under one lock); restart or not, the backoff and the restart's
 * number within the period must be those journaled. An exit journaled as not decided (restartsInPeriod 0) must come
 * after the pool failed (PoolFailed) or began to close (CloseStarted). A ChildRestarted must follow a decided restart of
 * its old pid, with the same backoff and number. The settings may not change within one run of a pool.
 */
public final class RestartDecisionAudit {
    /** The event kinds the audit reads. */
    public static final Set<EventType> KINDS = EnumSet.of(EventType.POOL_STARTED, EventType.CHILD_EXITED,
            EventType.CHILD_RESTARTED, EventType.POOL_FAILED, EventType.CLOSE_STARTED, EventType.CLOSE_COMPLETED);

    /** One pool between its start and its close. */
    private static final class PoolRun {
        RestartIntensity intensity;
        boolean failedOrClosing;
        /** The restart decided for the exit of each pid, until its ChildRestarted. */
        final Map<Integer, RestartIntensity.Decision> restarts = new HashMap<>();
    }

    private final Map<String, PoolRun> pools = new HashMap<>();

    /** Folds in the next event; returns what it found wrong (usually nothing). */
    public List<String> accept(JournalEvent e) {
        switch (e.type()) {
            case POOL_STARTED -> pools.put(e.poolId(), new PoolRun());
            case POOL_FAILED, CLOSE_STARTED -> {
                PoolRun p = pools.get(e.poolId());
                if (p != null) {
                    p.failedOrClosing = true;
                }
            }
            case CLOSE_COMPLETED -> pools.remove(e.poolId());
            case CHILD_EXITED -> {
                return exited((ChildExited) e);
            }
            case CHILD_RESTARTED -> {
                return restarted((ChildRestarted) e);
            }
            default -> {
                // not an input of a restart decision
            }
        }
        return List.of();
    }

    private List<String> exited(ChildExited x) {
        PoolRun p = pools.get(x.poolId());
        if (p == null || x.restartsInPeriod() < 0) {
            return List.of(); // another policy, a journal before version 2, or a pool whose start is not in it
        }
        String exit = "pool " + x.poolId() + " exit of child " + x.group() + "/" + x.index() + " pid " + x.pid() + " at "
                + at(x.timeNanos());
        if (x.restartsInPeriod() == 0) {
            return p.failedOrClosing ? List.of() : List.of(exit + ": journaled as not decided, but the pool had neither"
                    + " failed nor begun to close");
        }
        List<String> out = new ArrayList<>();
        if (p.intensity == null) {
            p.intensity = new RestartIntensity(x.maxRestarts(), x.periodNanos(), x.backoffNanos(), x.maxBackoffNanos());
        } else if (!p.intensity.hasSettings(x.maxRestarts(), x.periodNanos(), x.backoffNanos(), x.maxBackoffNanos())) {
            out.add(exit + ": restart settings changed within one run of the pool");
        }
        RestartIntensity.Decision derived = p.intensity.onExit(x.timeNanos());
        RestartIntensity.Decision journaled = RestartIntensity.journaled(x);
        if (!derived.equals(journaled)) {
            out.add(exit + ": journaled " + describe(journaled) + ", re-derived " + describe(derived)
                    + " (maxRestarts=" + x.maxRestarts() + " period " + ms(x.periodNanos()) + ")");
        }
        if (journaled.restart()) {
            p.restarts.put(x.pid(), journaled);
        }
        return out;
    }

    private List<String> restarted(ChildRestarted r) {
        PoolRun p = pools.get(r.poolId());
        if (p == null || p.intensity == null) {
            return List.of(); // exits of a journal before version 2: nothing decided to compare with
        }
        RestartIntensity.Decision d = p.restarts.remove(r.oldPid());
        String what = "pool " + r.poolId() + " restart of child " + r.group() + "/" + r.index() + " (pid " + r.oldPid()
                + " -> " + r.newPid() + ") at " + at(r.timeNanos());
        if (d == null) {
            return List.of(what + ": no decided restart of pid " + r.oldPid() + " before it");
        }
        if (d.backoffNanos() != r.backoffNanos() || d.restartsInPeriod() != r.restartsInPeriod()) {
            return List.of(what + ": it says backoff " + ms(r.backoffNanos()) + ", restart " + r.restartsInPeriod()
                    + "; its exit's decision was " + describe(d));
        }
        return List.of();
    }

    private static String describe(RestartIntensity.Decision d) {
        return d.restart() ? "restart " + d.restartsInPeriod() + " within the period after " + ms(d.backoffNanos())
                : "fail the pool (it would be restart " + d.restartsInPeriod() + " within the period)";
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f ms", nanos / 1e6);
    }

    private static String at(long nanos) {
        return String.format(Locale.ROOT, "%.6f s", nanos / 1e9);
    }
}
