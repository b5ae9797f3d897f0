/**
 * The pool API: an {@link dev.vigil.pool.Orchestrator} per process (journal, spawner, mailbox map,
 * ring drainer, close pipeline) and {@link dev.vigil.pool.Pool}s of named child groups (Java, C,
 * mailbox-speaking or plain executables) behind an admission fence. See docs/CLOSE.md.
 */
package dev.vigil.pool;
