/**
 * Mailboxes: the shared-memory protocol between the orchestrator and its children.
 *
 * <pre>
 *   MailboxStore (Chronicle Map file, one fixed-size record per child)
 *        | allocate / lookup / release (release only after reap)
 *        v
 *   MailboxHandle (parent) ----- MappedMailbox (VarHandle words over the mapped record) ----- ChildRuntime / C runtime
 *        | control, tasks, publishShutdown                 ^ transition ring
 *        v                                                 |
 *   journal: CommandIssued/Completed/TimedOut      RingDrainer -> MailboxTransitionBatch / RingOverrun
 * </pre>
 *
 * <p>Layout: {@link dev.vigil.mailbox.MailboxDescriptor}. Memory-ordering vocabulary used throughout:
 * {@code *Acquire} loads pair with {@code *Release} stores; {@code cas*} / {@code compareAndSet} for every
 * state transition (sticky mode). Legacy mode exists only to reproduce the upstream lost-shutdown race.
 * Classes here that a child uses ({@link dev.vigil.mailbox.MappedMailbox}, {@link dev.vigil.mailbox.MailboxHandoff},
 * the descriptor and codes, {@link dev.vigil.mailbox.IdleBackoff}) use JDK classes only.
 */
package dev.vigil.mailbox;
