package dev.vigil.replay;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.vigil.journal.AdmissionFenced;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.CommandCompleted;
import dev.vigil.journal.CommandIssued;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.InFlightSettled;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalWriter;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.journal.PoolStarted;
import dev.vigil.journal.RingOverrun;
import dev.vigil.journal.ShutdownPublished;
import dev.vigil.journal.SurvivorDiagnosed;
import dev.vigil.journal.SurvivorStacks;

/**
 * Writes realistic close sequences through the real {@link JournalWriter} into a real directory,
 * the way the orchestrator journals them (pool started, children spawned, mailbox transitions,
 * close started, shutdown published, acks, reaps, survivors diagnosed, escalation, mailboxes
 * released, close completed with its CloseReport JSON). The report it journals is built from
 * what the scenario made happen to each child (its own bookkeeping, not the replay's fold), so a
 * rebuilt outcome can be compared with it. Time is a synthetic CLOCK_MONOTONIC that only the
 * scenario advances, so journals are reproducible.
 */
final class ScenarioJournal implements AutoCloseable {
    static final int ORCHESTRATOR_PID = 900;

    private final JournalWriter writer;
    private long now = 5_000_000_000_000L;
    private int nextPid;
    private long nextCloseId = 1;
    private long nextCommandId = 1;
    private final Map<Long, CloseOutcome> liveReports = new LinkedHashMap<>();
    private long written;

    /**
     * Consecutive transitions of one mailbox (no other event between them) go into one {@link MailboxTransitionBatch},
     * as the orchestrator's ring drainer journals them; false: one {@link MailboxTransition} each (older journals).
     */
    private final boolean packTransitions;
    private final MailboxTransitionBatch.Builder pending = new MailboxTransitionBatch.Builder();
    private MailboxTransition pendingOf;
    /** The writer names a batch carries (the orchestrator's WriterRole codes). */
    static final String WRITER_NAMES = "NONE PARENT CHILD CLOSER";

    ScenarioJournal(Path dir, int firstPid, boolean packTransitions) {
        this.writer = JournalWriter.open(dir);
        this.nextPid = firstPid;
        this.packTransitions = packTransitions;
    }

    ScenarioJournal(Path dir, int firstPid) {
        this(dir, firstPid, false);
    }

    ScenarioJournal(Path dir) {
        this(dir, 4700);
    }

    long now() {
        return now;
    }

    void advanceMillis(double millis) {
        now += (long) (millis * 1_000_000);
    }

    long written() {
        return written;
    }

    /** Every report the "orchestrator" journaled, by close id. */
    Map<Long, CloseOutcome> liveReports() {
        return liveReports;
    }

    void append(JournalEvent e) {
        if (packTransitions && e instanceof MailboxTransition t) {
            if (pendingOf != null && !(pendingOf.poolId().equals(t.poolId()) && pendingOf.group().equals(t.group())
                    && pendingOf.index() == t.index() && pendingOf.closeId() == t.closeId())) {
                flushPending();
            }
            pendingOf = t;
            pending.add(t.seq(), t.timeNanos(), t.fromState(), t.toState(), List.of(WRITER_NAMES.split(" ")).indexOf(t.writer()),
                    t.writerPid());
            return;
        }
        flushPending();
        writer.append(e);
        written++;
    }

    private void flushPending() {
        if (pendingOf != null) {
            MailboxTransition t = pendingOf;
            pendingOf = null;
            writer.append(pending.build(t.orchestratorPid(), t.poolId(), t.closeId(), t.group(), t.index(), WRITER_NAMES));
            written++;
        }
    }

    @Override
    public void close() {
        flushPending();
        writer.close();
    }

    /** A pool of children spawned and ready; groups given as name, size, name, size ... */
    Pool pool(String poolId, String mode, Object... groupsAndSizes) {
        Pool p = new Pool(poolId, mode);
        int total = 0;
        for (int g = 0; g < groupsAndSizes.length; g += 2) {
            String group = (String) groupsAndSizes[g];
            int size = (Integer) groupsAndSizes[g + 1];
            for (int i = 0; i < size; i++) {
                Child c = new Child(p, group, i, nextPid++, "JAVA");
                p.children.add(c);
                append(new ChildSpawned(now, ORCHESTRATOR_PID, poolId, 0, group, i, c.pid, c.kind, 4096L * p.children.size(),
                        1, "java -cp child.jar dev.vigil.child.Demo"));
                advanceMillis(0.3);
                c.transition("CHILD", c.pid, MailboxStates.INIT_READY);
                c.transition("PARENT", ORCHESTRATOR_PID, MailboxStates.IDLE);
                total++;
            }
        }
        append(new PoolStarted(now, ORCHESTRATOR_PID, poolId, 0, "host-a", mode, groupsAndSizes.length / 2, total));
        return p;
    }

    final class Pool {
        final String id;
        final String mode;
        final List<Child> children = new ArrayList<>();
        long firstCloseId;

        Pool(String id, String mode) {
            this.id = id;
            this.mode = mode;
        }

        Child child(int n) {
            return children.get(n);
        }

        boolean legacy() {
            return "legacy".equals(mode);
        }

        /** A whole control command: request, handler, done, back to idle. */
        void control(Child c) {
            long cmd = nextCommandId++;
            append(new CommandIssued(now, ORCHESTRATOR_PID, id, 0, c.group, c.index, "CONTROL", cmd, 7, 0));
            c.transition("PARENT", ORCHESTRATOR_PID, MailboxStates.CONTROL_REQUEST);
            advanceMillis(2);
            c.transition("CHILD", c.pid, MailboxStates.CONTROL_DONE);
            append(new CommandCompleted(now, ORCHESTRATOR_PID, id, 0, c.group, c.index, "CONTROL", cmd, 0, 0, 2_000_000));
            c.transition("PARENT", ORCHESTRATOR_PID, MailboxStates.IDLE);
        }

        /** A whole task: submit, run, done, back to idle. */
        void task(Child c, double millis) {
            c.transition("PARENT", ORCHESTRATOR_PID, MailboxStates.TASK_READY);
            advanceMillis(millis);
            c.transition("CHILD", c.pid, MailboxStates.TASK_DONE);
            c.transition("PARENT", ORCHESTRATOR_PID, MailboxStates.IDLE);
        }

        /** The parent asks for a control command; the child is now inside its handler. */
        void enterControlHandler(Child c) {
            append(new CommandIssued(now, ORCHESTRATOR_PID, id, 0, c.group, c.index, "CONTROL", nextCommandId++, 7, 0));
            c.transition("PARENT", ORCHESTRATOR_PID, MailboxStates.CONTROL_REQUEST);
        }

        /** Operations in flight when the next close fences admission (settle them with {@link Close#settle}). */
        int inFlightAtFence;

        /** A close of this pool, {@code othersInFlight} other closes in flight as it starts. */
        Close close(String escalation, int othersInFlight) {
            long id = nextCloseId++;
            if (firstCloseId == 0) {
                firstCloseId = id;
            }
            return new Close(this, id, escalation, othersInFlight);
        }

        /** Children still tracked: spawned and not reaped. */
        List<Child> tracked() {
            return children.stream().filter(c -> !c.reaped).toList();
        }
    }

    final class Child {
        final Pool pool;
        final String group;
        final int index;
        final int pid;
        final String kind;
        long seq;
        int state = MailboxStates.IDLE;
        boolean reaped;

        Child(Pool pool, String group, int index, int pid, String kind) {
            this.pool = pool;
            this.group = group;
            this.index = index;
            this.pid = pid;
            this.kind = kind;
        }

        void transition(String writerRole, int writerPid, int to) {
            transitionAt(++seq, state, writerRole, writerPid, to);
            state = to;
        }

        void transitionAt(long atSeq, int from, String writerRole, int writerPid, int to) {
            append(new MailboxTransition(now, ORCHESTRATOR_PID, pool.id, 0, group, index, atSeq, from, to, writerRole,
                    writerPid));
            advanceMillis(0.05);
        }

        /** The ring lost transitions: seq jumps by {@code lost} and the overrun is journaled. */
        void overrun(int lost) {
            append(new RingOverrun(now, ORCHESTRATOR_PID, pool.id, 0, group, index, seq + 1, seq + lost));
            seq += lost;
        }

        ChildKey key() {
            return new ChildKey(group, index);
        }
    }

    /** One close in progress, journaling each step and keeping the "live" report as it goes. */
    final class Close {
        final Pool pool;
        final long closeId;
        final long startedAt;
        final Map<Child, String[]> diagnosis = new LinkedHashMap<>();
        final Map<Child, Boolean> escalated = new LinkedHashMap<>();
        final Map<Child, long[]> reaps = new LinkedHashMap<>(); // exit, signal, sinceBroadcast
        final List<Child> covered;
        long broadcastAt = -1;

        Close(Pool pool, long closeId, String escalation, int othersInFlight) {
            this.pool = pool;
            this.closeId = closeId;
            this.covered = pool.tracked();
            this.startedAt = now;
            append(new CloseStarted(now, ORCHESTRATOR_PID, pool.id, closeId, covered.size(), 10_000_000_000L,
                    120_000_000_000L, 0, escalation, othersInFlight + 1)); // as the engine counts: itself included
            append(new AdmissionFenced(now, ORCHESTRATOR_PID, pool.id, closeId, pool.inFlightAtFence));
            advanceMillis(0.1);
        }

        /** An operation in flight at the fence settled: FINISHED (it returned) or ABANDONED (still running at the report). */
        void settle(Child c, String outcome) {
            append(new InFlightSettled(now, ORCHESTRATOR_PID, pool.id, closeId, "control", c.group, c.index, outcome));
        }

        /** Publishes shutdown to every covered child (sticky: the shutdown word; legacy: SHUTDOWN in the state word). */
        Close broadcast() {
            broadcastAt = now;
            for (Child c : covered) {
                publish(c);
            }
            return this;
        }

        void publish(Child c) {
            if (pool.legacy()) {
                c.transition("CLOSER", ORCHESTRATOR_PID, MailboxStates.SHUTDOWN);
                append(new ShutdownPublished(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid,
                        "STATE_WORD", closeId, true, c.state));
            } else {
                append(new ShutdownPublished(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid,
                        "SHUTDOWN_WORD", pool.firstCloseId, closeId == pool.firstCloseId,
                        closeId == pool.firstCloseId ? 0 : pool.firstCloseId));
            }
            advanceMillis(0.02);
        }

        /** Legacy race: the child's CONTROL_DONE lands after SHUTDOWN, with the same seq (both read the same word). */
        void childOverwritesShutdown(Child c) {
            c.transitionAt(c.seq, MailboxStates.CONTROL_REQUEST, "CHILD", c.pid, MailboxStates.CONTROL_DONE);
            c.state = MailboxStates.CONTROL_DONE;
        }

        void ack(Child c) {
            append(new ChildAcked(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid, now - 40_000));
        }

        /** The child leaves its loop and exits: it finishes what it was in, acks, exits with {@code exit}. */
        void exits(Child c, double afterMillis, int exit) {
            ack(c);
            advanceMillis(afterMillis);
            reap(c, exit, 0);
        }

        /**
         * A child that exited while the pool ran, reaped by this close {@code millisBefore} ms before it started: the
         * engine journals the reap with the exit's own time and 0 since the broadcast.
         */
        void reapedBeforeStart(Child c, double millisBefore, int exit) {
            long at = startedAt - (long) (millisBefore * 1_000_000);
            append(new ChildReaped(at, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid, exit, 0, 0));
            reaps.put(c, new long[] {exit, 0, 0});
            c.reaped = true;
        }

        void reap(Child c, int exit, int signal) {
            long since = now - broadcastAt;
            append(new ChildReaped(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid,
                    signal > 0 ? -1 : exit, signal, since));
            reaps.put(c, new long[] {signal > 0 ? -1 : exit, signal, since});
            c.reaped = true;
            advanceMillis(0.05);
        }

        void diagnose(Child c, String cls, String evidence) {
            append(new SurvivorDiagnosed(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid, cls,
                    evidence));
            diagnosis.put(c, new String[] {cls, evidence});
            advanceMillis(0.2);
        }

        /** Evidence text as the orchestrator's diagnose stage writes it. */
        String evidence(Child c, String cls, String shutdown, String ack, String heartbeatAge, String proc, String wchan) {
            return "pid=" + c.pid + " group=" + c.group + " child=" + c.index + " class=" + cls + " state="
                    + MailboxStates.name(c.state) + " shutdown=" + shutdown + " ack=" + ack + " heartbeat_age="
                    + heartbeatAge + " proc=" + proc + " wchan=" + wchan;
        }

        /** The survivor's stacks, as the orchestrator's capture journals them before the first signal. */
        void stacks(Child c, String tool, String summary, String stacks) {
            append(new SurvivorStacks(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid, tool, 60_000_000L,
                    summary, stacks));
            advanceMillis(0.1);
        }

        void escalate(Child c, int signal) {
            append(new EscalationSent(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, c.pid, signal,
                    "PROCESS_GROUP"));
            escalated.put(c, true);
            advanceMillis(0.1);
        }

        void release(Child c) {
            append(new MailboxReleased(now, ORCHESTRATOR_PID, pool.id, closeId, c.group, c.index, 4096L));
        }

        /** Releases the mailboxes of reaped children, journals the report, returns it. */
        CloseOutcome complete() {
            for (Child c : covered) {
                if (c.reaped) {
                    release(c);
                }
            }
            advanceMillis(0.1);
            return appendCompleted(report());
        }

        /** The report of what this scenario made happen to each covered child. */
        CloseOutcome report() {
            List<ChildOutcome> children = new ArrayList<>();
            boolean failed = false;
            for (Child c : covered) {
                String[] d = diagnosis.get(c);
                long[] r = reaps.get(c);
                String outcome;
                if (r == null) {
                    outcome = ChildOutcome.SURVIVOR;
                } else if (escalated.containsKey(c)) {
                    outcome = ChildOutcome.KILLED_BY_ESCALATION;
                } else {
                    outcome = r[1] > 0 ? ChildOutcome.SIGNALED : ChildOutcome.EXITED;
                }
                failed |= !outcome.equals(ChildOutcome.EXITED) && !outcome.equals(ChildOutcome.SIGNALED);
                children.add(new ChildOutcome(c.group, c.index, c.pid, c.kind, outcome, r == null ? -1 : (int) r[0],
                        r == null ? 0 : (int) r[1], r == null ? -1 : r[2], d == null ? null : d[0],
                        d == null ? null : d[1]));
            }
            return new CloseOutcome(pool.id, closeId, failed ? CloseOutcome.FAILED : CloseOutcome.CLEAN,
                    now - startedAt, children);
        }

        /** Journals {@code report} as this close's completion. */
        CloseOutcome appendCompleted(CloseOutcome report) {
            int survivors = report.survivors();
            append(new CloseCompleted(now, ORCHESTRATOR_PID, pool.id, closeId, report.outcome(),
                    covered.size() - survivors, survivors, now - startedAt, report.toJson()));
            liveReports.put(closeId, report);
            advanceMillis(1);
            return report;
        }
    }
}
