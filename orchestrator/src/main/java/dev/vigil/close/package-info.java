/**
 * Closing pools: the Disruptor close pipeline, reap budgets, survivor diagnosis and the close report.
 *
 * <pre>
 *  Pool.close() --submit(lane)--> ring --+-- lane 0: fence > broadcast > reap > diagnose > escalate > release > report --> CloseReport
 *                                        +-- lane 1: ...                                                              (journal: CloseCompleted)
 *                                        +-- lane n-1 (n = vigil.close.maxParallel)
 * </pre>
 *
 * The pipeline sees a pool only through {@link dev.vigil.close.CloseTarget} and its children through
 * {@link dev.vigil.close.ClosingChild}; {@code dev.vigil.pool} implements both over real processes
 * and mailboxes. docs/CLOSE.md describes stages, settings, diagnosis rules and the report's JSON contract.
 */
package dev.vigil.close;
