/**
 * Closing pools: the close engine (one thread consuming a Disruptor ring of inputs, driving the
 * {@link dev.vigil.close.CloseMachine} state machine), settings, and the journal it writes to. What a close
 * decides (budget, progress, diagnosis, escalation, outcome) lives in {@code dev.vigil.close.decision}.
 *
 * <pre>
 *  requested, child exited, op settled, child joined, escalate-now --> ring --> [engine thread] --> journal, effects
 * </pre>
 *
 * The engine sees a pool only through {@link dev.vigil.close.CloseTarget} and its children through
 * {@link dev.vigil.close.ClosingChild}; {@code dev.vigil.pool} implements both over real processes
 * and mailboxes. docs/CLOSE.md describes the machine, settings, diagnosis rules and the report's JSON contract.
 */
package dev.vigil.close;
