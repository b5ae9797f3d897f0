package dev.vigil.close;

import java.util.concurrent.CompletableFuture;

import dev.vigil.close.decision.MailboxWords;

/**
 * One child as the close engine drives it. Implemented by the pool over a spawned process and its mailbox.
 * Every method is called from the close engine's thread and must not block (memory reads and CAS, signals,
 * map removals, short /proc reads).
 */
public interface ClosingChild {
    String group();

    int index();

    int pid();

    /** JAVA, C, MAILBOX_EXEC or EXEC. */
    String kind();

    /**
     * The spawned process, whose exit the close engine may wait for itself ({@link dev.vigil.spawn.ExitWatch}); null
     * when there is none to watch (its exit comes through {@link #exit()} only).
     */
    default dev.vigil.spawn.ChildProcess process() {
        return null;
    }

    /** False for a plain executable (signals only). */
    boolean hasMailbox();

    /** Publishes the shutdown request: the shutdown word (CAS 0 -> epoch), or the stop signal of a plain executable. */
    ShutdownDelivery deliverShutdown(long epoch);

    /** The mailbox words now; null when {@link #hasMailbox()} is false or the mailbox was released. */
    MailboxWords mailboxWords();

    /** The file its mailbox lives in (a survivor's /proc maps are checked for it); null without a mailbox. */
    default java.nio.file.Path mailboxFile() {
        return null;
    }

    /** Completes once the child's exit status is collected. Never completes exceptionally for a live child. */
    CompletableFuture<ChildExit> exit();

    /** Sends {@code signal} through the child's pidfd; false if it was already gone. */
    boolean signal(int signal);

    /** Sends {@code signal} to the child's process group (it is the group leader); false if gone. */
    boolean signalProcessGroup(int signal);

    /**
     * The child is gone: its pending command fails at once naming {@code reason} (no-op without a mailbox), called only
     * when a failure is reported.
     */
    void failPendingCommands(java.util.function.Supplier<String> reason);

    /** Journals the mailbox's undrained transition-ring records (no-op without a mailbox). */
    void drainTransitions(long closeId);

    /** Offset of the child's mailbox in the map file, -1 without one. */
    long mailboxOffset();

    /**
     * Frees the mailbox, unless a caller is inside a command on it right now (false: try again later). Only called
     * after {@link #exit()} completed; never for a survivor. True also when there is nothing to free.
     */
    boolean tryReleaseMailbox();

    /** The child's own stderr log file (its output went to log files), or null when its output went elsewhere. */
    default java.nio.file.Path stderrLog() {
        return null;
    }

    /**
     * The last lines this child wrote to {@link #stderrLog()} (not what an earlier run or incarnation wrote before it
     * in the same file), or null: nothing written, or no log file.
     */
    default String stderrTail() {
        return null;
    }
}
