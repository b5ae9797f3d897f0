package dev.vigil.close;

import java.util.concurrent.CompletableFuture;

import dev.vigil.close.decision.MailboxWords;

/**
 * One child as the close pipeline drives it. Implemented by the pool over a spawned process and
 * its mailbox; every method is called from close-pipeline threads, one stage at a time.
 */
public interface ClosingChild {
    String group();

    int index();

    int pid();

    /** JAVA, C, MAILBOX_EXEC or EXEC. */
    String kind();

    /** False for a plain executable (signals only). */
    boolean hasMailbox();

    /** Publishes the shutdown request: the shutdown word (CAS 0 -> epoch), or the stop signal of a plain executable. */
    ShutdownDelivery deliverShutdown(long epoch);

    /** The mailbox words now; null when {@link #hasMailbox()} is false. */
    MailboxWords mailboxWords();

    /** Completes once the child's exit status is collected. Never completes exceptionally for a live child. */
    CompletableFuture<ChildExit> exit();

    /** Sends {@code signal} through the child's pidfd; false if it was already gone. */
    boolean signal(int signal);

    /** Sends {@code signal} to the child's process group (it is the group leader); false if gone. */
    boolean signalProcessGroup(int signal);

    /** Journals the mailbox's undrained transition-ring records (no-op without a mailbox). */
    void drainTransitions(long closeId);

    /** Offset of the child's mailbox in the map file, -1 without one. */
    long mailboxOffset();

    /** Frees the mailbox. Only called after {@link #exit()} completed; never for a survivor. */
    void releaseMailbox();
}
