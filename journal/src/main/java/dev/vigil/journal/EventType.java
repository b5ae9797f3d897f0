package dev.vigil.journal;

/**
 * Every kind of journal event with its stable numeric id. Ids are never reused or renumbered:
 * a retired kind keeps its number reserved here as a comment. Ranges in use: 1-19 the core kinds,
 * 20-29 journal, 30-39 containment, 40-49 close engine, 50-59 forensics, 60-64 mailbox ring.
 * A new kind needs no schema bump: its bodies carry layout version 1 (docs/JOURNAL.md, "Adding a
 * field or an event kind").
 */
public enum EventType {
    POOL_STARTED(1, PoolStarted.class),
    CHILD_SPAWNED(2, ChildSpawned.class),
    SPAWN_FAILED(3, SpawnFailed.class),
    MAILBOX_TRANSITION(4, MailboxTransition.class),
    RING_OVERRUN(5, RingOverrun.class),
    COMMAND_ISSUED(6, CommandIssued.class),
    COMMAND_COMPLETED(7, CommandCompleted.class),
    COMMAND_TIMED_OUT(8, CommandTimedOut.class),
    ADMISSION_FENCED(9, AdmissionFenced.class),
    ADMISSION_REJECTED(10, AdmissionRejected.class),
    IN_FLIGHT_SETTLED(11, InFlightSettled.class),
    CLOSE_STARTED(12, CloseStarted.class),
    SHUTDOWN_PUBLISHED(13, ShutdownPublished.class),
    CHILD_ACKED(14, ChildAcked.class),
    CHILD_REAPED(15, ChildReaped.class),
    SURVIVOR_DIAGNOSED(16, SurvivorDiagnosed.class),
    ESCALATION_SENT(17, EscalationSent.class),
    MAILBOX_RELEASED(18, MailboxReleased.class),
    CLOSE_COMPLETED(19, CloseCompleted.class),
    // 20-29: the journal itself
    JOURNAL_SET_ASIDE(20, JournalSetAside.class),
    // 30-39: containment and crash recovery
    CONTAINMENT_CHOSEN(30, ContainmentChosen.class),
    STRAY_FOUND(31, StrayFound.class),
    CONTAINMENT_KILLED(32, ContainmentKilled.class),
    ORCHESTRATOR_DEATH_FOUND(33, OrchestratorDeathFound.class),
    CLOSE_ENDED_BY_ORCHESTRATOR_DEATH(34, CloseEndedByOrchestratorDeath.class),
    MAILBOX_RECOVERED(35, MailboxRecovered.class),
    POOL_KEPT(36, PoolKept.class),
    CONTAINMENT_ESCAPED(37, ContainmentEscaped.class),
    // 40-49: the event-driven close engine and the run-time child supervision
    HEARTBEAT_SEEN(40, HeartbeatSeen.class),
    BUDGET_SPENT(41, BudgetSpent.class),
    COMMAND_FAILED(42, CommandFailed.class),
    CHILD_EXITED(43, ChildExited.class),
    CHILD_RESTARTED(44, ChildRestarted.class),
    POOL_FAILED(45, PoolFailed.class),
    CLOSE_ABORTED(46, CloseAborted.class),
    CHILD_OUTPUT_TAIL(48, ChildOutputTail.class),
    ESCALATE_NOW_REQUESTED(49, EscalateNowRequested.class),
    // 50-59: forensics
    SURVIVOR_STACKS(50, SurvivorStacks.class),
    // 60-64: mailbox ring
    MAILBOX_TRANSITION_BATCH(60, MailboxTransitionBatch.class);

    private static final EventType[] BY_ID;

    static {
        int max = 0;
        for (EventType t : values()) {
            max = Math.max(max, t.id);
        }
        BY_ID = new EventType[max + 1];
        for (EventType t : values()) {
            if (BY_ID[t.id] != null) {
                throw new ExceptionInInitializerError("duplicate event type id=" + t.id);
            }
            BY_ID[t.id] = t;
        }
    }

    private final int id;
    private final Class<? extends JournalEvent> recordClass;

    EventType(int id, Class<? extends JournalEvent> recordClass) {
        this.id = id;
        this.recordClass = recordClass;
    }

    /** The stable numeric id written in every event's header. */
    public int id() {
        return id;
    }

    public Class<? extends JournalEvent> recordClass() {
        return recordClass;
    }

    /** The layout version this build writes for the kind: the highest {@link AddedIn} of its fields, 1 without any. */
    public int version() {
        return EventCodec.layoutVersionOf(recordClass);
    }

    /** The kind with this id, or null when this reader does not know it (a newer schema wrote it). */
    public static EventType byId(int id) {
        return id > 0 && id < BY_ID.length ? BY_ID[id] : null;
    }
}
