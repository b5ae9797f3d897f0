/**
 * Ownership of a journal directory and recovery after a crash: one live orchestrator per journal dir
 * ({@link dev.vigil.recovery.JournalDirOwnership}, an fcntl lock; a second one refuses at once naming the
 * owner), and, when the previous owner died, {@link dev.vigil.recovery.CrashRecovery}: nothing of it left
 * alive, its incomplete closes ended in the journal, its mailboxes freed.
 */
package dev.vigil.recovery;
