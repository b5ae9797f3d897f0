package dev.vigil.journal;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * A fact that Vigil recorded, named in the past tense. Every event carries the same header fields:
 * {@code timeNanos} (CLOCK_MONOTONIC, comparable across processes on one host),
 * {@code orchestratorPid}, {@code poolId} and {@code closeId} (0 outside a close).
 * The binary form is written by {@link EventCodec}; the JSON form (one object per line) by
 * {@link JsonEvents}, with the type name in the field {@code "event"}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME, include = JsonTypeInfo.As.PROPERTY, property = "event")
@JsonSubTypes({
    @JsonSubTypes.Type(PoolStarted.class),
    @JsonSubTypes.Type(ChildSpawned.class),
    @JsonSubTypes.Type(SpawnFailed.class),
    @JsonSubTypes.Type(MailboxTransition.class),
    @JsonSubTypes.Type(MailboxTransitionBatch.class),
    @JsonSubTypes.Type(RingOverrun.class),
    @JsonSubTypes.Type(CommandIssued.class),
    @JsonSubTypes.Type(CommandCompleted.class),
    @JsonSubTypes.Type(CommandTimedOut.class),
    @JsonSubTypes.Type(AdmissionFenced.class),
    @JsonSubTypes.Type(AdmissionRejected.class),
    @JsonSubTypes.Type(InFlightSettled.class),
    @JsonSubTypes.Type(CloseStarted.class),
    @JsonSubTypes.Type(ShutdownPublished.class),
    @JsonSubTypes.Type(ChildAcked.class),
    @JsonSubTypes.Type(ChildReaped.class),
    @JsonSubTypes.Type(SurvivorDiagnosed.class),
    @JsonSubTypes.Type(EscalationSent.class),
    @JsonSubTypes.Type(MailboxReleased.class),
    @JsonSubTypes.Type(CloseCompleted.class),
    @JsonSubTypes.Type(HeartbeatSeen.class),
    @JsonSubTypes.Type(BudgetSpent.class),
    @JsonSubTypes.Type(CommandFailed.class),
    @JsonSubTypes.Type(ChildExited.class),
    @JsonSubTypes.Type(ChildRestarted.class),
    @JsonSubTypes.Type(PoolFailed.class),
    @JsonSubTypes.Type(ContainmentChosen.class),
    @JsonSubTypes.Type(StrayFound.class),
    @JsonSubTypes.Type(ContainmentKilled.class),
    @JsonSubTypes.Type(OrchestratorDeathFound.class),
    @JsonSubTypes.Type(CloseEndedByOrchestratorDeath.class),
    @JsonSubTypes.Type(MailboxRecovered.class),
    @JsonSubTypes.Type(EscalateNowRequested.class),
    @JsonSubTypes.Type(CloseAborted.class),
    @JsonSubTypes.Type(ChildOutputTail.class),
    @JsonSubTypes.Type(SurvivorStacks.class),
    @JsonSubTypes.Type(PoolKept.class),
    @JsonSubTypes.Type(ContainmentEscaped.class),
    @JsonSubTypes.Type(JournalSetAside.class),
})
public sealed interface JournalEvent permits PoolStarted, ChildSpawned, SpawnFailed, MailboxTransition, MailboxTransitionBatch, RingOverrun, CommandIssued, CommandCompleted, CommandTimedOut, AdmissionFenced, AdmissionRejected, InFlightSettled, CloseStarted, ShutdownPublished, ChildAcked, ChildReaped, SurvivorDiagnosed, EscalationSent, MailboxReleased, CloseCompleted,
        HeartbeatSeen, BudgetSpent, CommandFailed, ChildExited, ChildRestarted, PoolFailed,
        ContainmentChosen, StrayFound, ContainmentKilled, OrchestratorDeathFound, CloseEndedByOrchestratorDeath,
        MailboxRecovered, EscalateNowRequested, CloseAborted, SurvivorStacks, PoolKept, ChildOutputTail,
        ContainmentEscaped, JournalSetAside {

    /** Monotonic clock nanos (CLOCK_MONOTONIC) at which the fact happened. */
    long timeNanos();

    int orchestratorPid();

    String poolId();

    /** The close this event belongs to, or 0 when it belongs to none. */
    long closeId();

    @JsonIgnore
    EventType type();
}
