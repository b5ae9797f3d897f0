package dev.vigil.replay;

import java.nio.file.Path;
import java.util.Map;

/**
 * The journals the tests replay, each written through the real JournalWriter by a
 * {@link ScenarioJournal}: every close shape the orchestrator produces.
 */
final class Scenarios {
    static final String LEAK = "leak";
    static final String TERM_THEN_KILL = "term-then-kill";

    private Scenarios() {
    }

    /** A sticky pool of two groups doing some work, then a clean close; one child ends by a signal. */
    static Map<Long, CloseOutcome> clean(Path dir) {
        try (ScenarioJournal j = new ScenarioJournal(dir)) {
            ScenarioJournal.Pool p = j.pool("p-clean", "sticky", "chips", 3, "hosts", 1);
            for (ScenarioJournal.Child c : p.children) {
                p.control(c);
                p.task(c, 5);
            }
            ScenarioJournal.Close close = p.close(LEAK, 0).broadcast();
            close.exits(p.child(0), 198, 0);
            close.exits(p.child(1), 1210, 0);
            close.exits(p.child(2), 190, 3);
            close.ack(p.child(3));
            j.advanceMillis(20);
            close.reap(p.child(3), -1, 11);
            close.complete();
            return j.liveReports();
        }
    }

    /** One sticky pool per survivor class, each closed with the leak policy; and one escalated. */
    static Map<Long, CloseOutcome> survivors(Path dir) {
        try (ScenarioJournal j = new ScenarioJournal(dir)) {
            // NOT_OBSERVED: inside a control handler, never reaches its loop, never acks
            ScenarioJournal.Pool a = j.pool("p-not-observed", "sticky", "chips", 2);
            a.control(a.child(0));
            a.enterControlHandler(a.child(1));
            ScenarioJournal.Close ca = a.close(LEAK, 0).broadcast();
            ca.exits(a.child(0), 300, 0);
            j.advanceMillis(10_000);
            ca.diagnose(a.child(1), "NOT_OBSERVED", ca.evidence(a.child(1), "NOT_OBSERVED", "set", "none", "3.2s", "S",
                    "futex_wait"));
            ca.complete();

            // WEDGED: acked, then its handler blocked in the device; no beat for a window
            ScenarioJournal.Pool b = j.pool("p-wedged", "sticky", "chips", 2);
            ScenarioJournal.Close cb = b.close(LEAK, 0).broadcast();
            cb.exits(b.child(0), 150, 0);
            cb.ack(b.child(1));
            j.advanceMillis(10_000);
            cb.diagnose(b.child(1), "WEDGED", cb.evidence(b.child(1), "WEDGED", "set", "seen", "9.8s", "D", "dev_ioctl"));
            cb.complete();

            // FINALIZING: acked and still beating: slow teardown, not stuck
            ScenarioJournal.Pool c = j.pool("p-finalizing", "sticky", "chips", 1);
            ScenarioJournal.Close cc = c.close(LEAK, 0).broadcast();
            j.advanceMillis(200);
            cc.ack(c.child(0));
            j.advanceMillis(59_800);
            cc.diagnose(c.child(0), "FINALIZING", cc.evidence(c.child(0), "FINALIZING", "set", "seen", "0.1s", "R", "0"));
            cc.complete();

            // STOPPED: someone sent SIGSTOP (or a debugger holds it)
            ScenarioJournal.Pool d = j.pool("p-stopped", "sticky", "chips", 1);
            ScenarioJournal.Close cd = d.close(LEAK, 0).broadcast();
            j.advanceMillis(10_000);
            cd.diagnose(d.child(0), "STOPPED", cd.evidence(d.child(0), "STOPPED", "set", "none", "10.0s", "T",
                    "do_signal_stop"));
            cd.complete();

            // escalated: wedged, then SIGTERM to the group, grace, SIGKILL, reaped by signal 9
            ScenarioJournal.Pool e = j.pool("p-escalated", "sticky", "chips", 2);
            ScenarioJournal.Close ce = e.close(TERM_THEN_KILL, 0).broadcast();
            ce.exits(e.child(0), 120, 0);
            ce.ack(e.child(1));
            j.advanceMillis(10_000);
            ce.diagnose(e.child(1), "WEDGED", ce.evidence(e.child(1), "WEDGED", "set", "seen", "9.9s", "D", "dev_ioctl"));
            ce.escalate(e.child(1), 15);
            j.advanceMillis(5_000);
            ce.escalate(e.child(1), 9);
            j.advanceMillis(3);
            ce.reap(e.child(1), -1, 9);
            ce.complete();
            return j.liveReports();
        }
    }

    /** A close that leaves a finalizing survivor, then a retried close that reaps it. */
    static Map<Long, CloseOutcome> retried(Path dir) {
        try (ScenarioJournal j = new ScenarioJournal(dir)) {
            ScenarioJournal.Pool p = j.pool("p-retried", "sticky", "chips", 3);
            ScenarioJournal.Close first = p.close(LEAK, 0).broadcast();
            first.exits(p.child(0), 400, 0);
            first.exits(p.child(1), 500, 0);
            first.ack(p.child(2));
            j.advanceMillis(10_000);
            first.diagnose(p.child(2), "FINALIZING", first.evidence(p.child(2), "FINALIZING", "set", "seen", "0.2s", "R",
                    "0"));
            first.complete();
            j.advanceMillis(2_000);
            ScenarioJournal.Close retry = p.close(LEAK, 0).broadcast();
            j.advanceMillis(1_500);
            retry.reap(p.child(2), 0, 0);
            retry.complete();
            return j.liveReports();
        }
    }

    /** Three pools closing at once, their events interleaved; one survivor. */
    static Map<Long, CloseOutcome> overlapping(Path dir) {
        try (ScenarioJournal j = new ScenarioJournal(dir)) {
            ScenarioJournal.Pool a = j.pool("job-a", "sticky", "chips", 4);
            ScenarioJournal.Pool b = j.pool("job-b", "sticky", "chips", 4);
            ScenarioJournal.Pool c = j.pool("job-c", "sticky", "chips", 2);
            for (ScenarioJournal.Pool p : new ScenarioJournal.Pool[] {a, b, c}) {
                for (ScenarioJournal.Child ch : p.children) {
                    p.task(ch, 3);
                }
            }
            b.enterControlHandler(b.child(3));
            ScenarioJournal.Close ca = a.close(LEAK, 0).broadcast();
            ScenarioJournal.Close cb = b.close(LEAK, 1).broadcast();
            ScenarioJournal.Close cc = c.close(LEAK, 2).broadcast();
            for (int i = 0; i < 4; i++) {
                ca.exits(a.child(i), 100 + 37 * i, 0);
                if (i < 3) {
                    cb.exits(b.child(i), 80 + 51 * i, 0);
                }
                if (i < 2) {
                    cc.exits(c.child(i), 60 + 13 * i, 0);
                }
            }
            cc.complete();
            ca.complete();
            j.advanceMillis(10_000);
            cb.diagnose(b.child(3), "NOT_OBSERVED", cb.evidence(b.child(3), "NOT_OBSERVED", "set", "none", "10.1s", "S",
                    "futex_wait"));
            cb.complete();
            return j.liveReports();
        }
    }

    /**
     * Legacy mode, the race: child pid 4711 is inside a control handler when the closer writes
     * SHUTDOWN into the state word; its unconditional CONTROL_DONE lands after it with the same seq.
     */
    static Map<Long, CloseOutcome> legacyRace(Path dir) {
        return legacyRace(dir, false);
    }

    /** {@link #legacyRace(Path)}, its transitions packed as the ring drainer journals them (MailboxTransitionBatch). */
    static Map<Long, CloseOutcome> legacyRace(Path dir, boolean packTransitions) {
        try (ScenarioJournal j = new ScenarioJournal(dir, 4709, packTransitions)) {
            ScenarioJournal.Pool p = j.pool("p-legacy", "legacy", "chips", 3);
            for (ScenarioJournal.Child c : p.children) {
                p.control(c);
                p.task(c, 4);
            }
            p.control(p.child(2));
            p.task(p.child(2), 4);
            p.enterControlHandler(p.child(2));
            ScenarioJournal.Close close = p.close(LEAK, 0).broadcast();
            close.childOverwritesShutdown(p.child(2));
            close.exits(p.child(0), 210, 0);
            close.exits(p.child(1), 230, 0);
            j.advanceMillis(10_000);
            close.diagnose(p.child(2), "NOT_DELIVERED", close.evidence(p.child(2), "NOT_DELIVERED",
                    "overwritten_by=CHILD:CONTROL_DONE", "none", "0.4s", "S", "futex_wait"));
            close.complete();
            return j.liveReports();
        }
    }

    /** The same workload in sticky mode: the child finishes its handler, sees the shutdown word, exits. */
    static Map<Long, CloseOutcome> stickyNoRace(Path dir) {
        try (ScenarioJournal j = new ScenarioJournal(dir, 4709)) {
            ScenarioJournal.Pool p = j.pool("p-sticky", "sticky", "chips", 3);
            for (ScenarioJournal.Child c : p.children) {
                p.control(c);
                p.task(c, 4);
            }
            p.enterControlHandler(p.child(2));
            ScenarioJournal.Close close = p.close(LEAK, 0).broadcast();
            p.child(2).transition("CHILD", p.child(2).pid, MailboxStates.CONTROL_DONE);
            close.exits(p.child(0), 210, 0);
            close.exits(p.child(1), 230, 0);
            close.exits(p.child(2), 20, 0);
            close.complete();
            return j.liveReports();
        }
    }
}
