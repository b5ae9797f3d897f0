package dev.vigil.mailbox;

import static dev.vigil.mailbox.MailboxState.*;

import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.vigil.journal.CommandCompleted;
import dev.vigil.journal.CommandFailed;
import dev.vigil.journal.CommandIssued;
import dev.vigil.journal.CommandTimedOut;
import dev.vigil.journal.JournalEvent;
import dev.vigil.mailbox.internal.Futex;

/**
 * The parent's side of one child's mailbox. Control commands and tasks are serialized by a lock (one
 * command in the mailbox at a time); {@link #publishShutdown} takes no lock, as the closing side must
 * not wait for a command in flight. Every state change is a CAS from the word last read (sticky) or a
 * plain store (legacy, reproduction only); both are recorded in the transition ring.
 *
 * <p>A command whose wait timed out stays in the mailbox: the child still completes it, and the next
 * command operation on this handle first collects that late result (journaled as completed, with
 * its true elapsed time) and returns the mailbox to IDLE, so the state chain stays unbroken.
 */
public final class MailboxHandle {
    public static final String KIND_CONTROL = "CONTROL";
    public static final String KIND_TASK = "TASK";

    private static final int PARENT_PID = (int) ProcessHandle.current().pid();

    private final MailboxId id;
    private final ProtocolMode mode;
    private final Path mapFile;
    private final MappedMailbox mailbox;
    private final ReentrantLock commandLock = new ReentrantLock();

    private volatile Consumer<? super JournalEvent> journal = event -> { };
    private volatile LongSupplier closeId = () -> 0L;
    private volatile Runnable commandCompletedListener;
    private volatile Runnable commandIssuedListener;
    /** Rings a doorbell of the child's own besides the futex (a Java child's pipe); null: the futex only. */
    private volatile Runnable extraDoorbell;
    /**
     * The address of the futex word in our mapping: worked out with the handle (on the thread that spawns the child),
     * not at its first ring (a close's broadcast, where it cost a duplicate of the map's buffer per child of a new
     * pool); 0 when that failed (no futex binding here): then at the first ring, which says why.
     */
    private volatile long ringAddress;
    private final java.util.concurrent.atomic.AtomicLong rings = new java.util.concurrent.atomic.AtomicLong();

    /** Why no command can complete any more (the child exited), built when a message needs it; null while it lives. */
    private volatile Supplier<String> goneReason;
    /** How the last command that ended without its caller ended: completed (true) or failed. */
    private volatile boolean lastCommandCompleted;

    // guarded by commandLock
    private boolean released;
    /** A command settled by {@link #settlePending} that its sender has not collected with an await yet. */
    private CommandResult settled;
    private String settledKind;
    private long nextCommandId;
    private String pendingKind;
    private long pendingCommandId;
    private long pendingIssuedNanos;
    /** Whether the pending command's publish rang the child awake. */
    private boolean pendingRang;

    MailboxHandle(MailboxId id, ProtocolMode mode, Path mapFile, MappedMailbox mailbox) {
        this.id = Objects.requireNonNull(id, "id");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.mapFile = mapFile;
        this.mailbox = mailbox;
        this.nextCommandId = Math.max(mailbox.commandId(), mailbox.resultId()) + 1;
        try {
            this.ringAddress = Futex.address(mailbox.directRegion(), MailboxDescriptor.DOORBELL_RING_OFFSET);
        } catch (RuntimeException | LinkageError e) {
            // worked out at the first ring instead, where a missing binding is named
        }
    }

    /**
     * A handle over a mailbox that was formatted elsewhere (tests, tools): no store involved.
     * The mailbox's own protocol-mode field decides the mode.
     */
    public static MailboxHandle over(MailboxId id, Path mapFile, MappedMailbox mailbox) {
        mailbox.checkHeader();
        return new MailboxHandle(id, mailbox.protocolMode(), mapFile, mailbox);
    }

    /**
     * Journals CommandIssued / CommandCompleted / CommandTimedOut of this handle's operations into
     * {@code sink} (e.g. {@code journalWriter::append}); {@code closeIdSource} supplies the close id
     * (0 outside a close). Returns this handle.
     */
    public MailboxHandle journalCommandsTo(Consumer<? super JournalEvent> sink, LongSupplier closeIdSource) {
        this.journal = Objects.requireNonNull(sink, "sink");
        this.closeId = Objects.requireNonNull(closeIdSource, "closeIdSource");
        return this;
    }

    /** {@code listener} runs on the command path after every completion it observes (the ring drainer's hook); null removes it. */
    public void onCommandCompleted(Runnable listener) {
        this.commandCompletedListener = listener;
    }

    /**
     * {@code listener} runs on the command path right after it published a command, while the child works on it (the ring
     * drainer's hook: the wait for the answer would spin anyway); null removes it.
     */
    public void onCommandIssued(Runnable listener) {
        this.commandIssuedListener = listener;
    }

    /**
     * {@code ring} runs after the futex wake whenever this handle rings the child's doorbell (the pool passes a Java
     * child's pipe write: a JVM cannot wait on a futex). Null: the futex only.
     */
    public void alsoRing(Runnable ring) {
        this.extraDoorbell = ring;
    }

    /** How many times this handle rang the doorbell (the child had announced its sleep). */
    public long doorbellRings() {
        return rings.get();
    }

    public MailboxId id() {
        return id;
    }

    public ProtocolMode mode() {
        return mode;
    }

    /** Byte offset of this mailbox in the map file (multiple of 64). */
    public long offset() {
        return mailbox.fileOffset();
    }

    public Path mapFile() {
        return mapFile;
    }

    /** The raw words (for the ring drainer, diagnosis and tests). */
    public MappedMailbox mailbox() {
        return mailbox;
    }

    /** The handoff a child of this mailbox needs. */
    public MailboxHandoff handoff(int parentPid) {
        return new MailboxHandoff(mapFile, offset(), MailboxDescriptor.LAYOUT_VERSION, parentPid, mode, id.poolId(), id.group(), id.index(),
                mailbox.mailboxLength());
    }

    /** The environment variables that hand this mailbox to a child (see {@link MailboxHandoff}). */
    public Map<String, String> handoffEnv(int parentPid) {
        return handoff(parentPid).toEnv();
    }

    // ---------------------------------------------------------------- reads (all acquire)

    public long stateWord() {
        return mailbox.stateAcquire();
    }

    public int state() {
        return MailboxDescriptor.state(mailbox.stateAcquire());
    }

    public long shutdownWord() {
        return mailbox.shutdownAcquire();
    }

    /** The child's CLOCK_MONOTONIC time of first seeing shutdown, 0 if it has not. */
    public long ackNanos() {
        return mailbox.ackAcquire();
    }

    public long heartbeat() {
        return mailbox.heartbeatAcquire();
    }

    /**
     * True while the child says it sleeps on its doorbell (its sleeping flag, docs/MAILBOX.md "The doorbell"): its
     * heartbeat then stands still between the doorbell bound's beats, and a ring wakes it.
     */
    public boolean asleep() {
        return mailbox.sleepingVolatile() != 0;
    }

    /** The pid the child wrote when it attached, 0 before that. */
    public int childPid() {
        return mailbox.childPidAcquire();
    }

    /** Sets the demo/test gate word that releases children blocked in a gate handler. */
    public void setGate(long value) {
        mailbox.gateRelease(value);
    }

    // ---------------------------------------------------------------- shutdown

    /**
     * Publishes shutdown. Sticky: one CAS of the shutdown word 0 -> {@code epoch} (non-zero); a second
     * publication loses and reports the epoch found. Legacy (reproduction only): a plain store of SHUTDOWN
     * into the state word by role CLOSER, as the upstream runner did; it can be overwritten.
     */
    public ShutdownPublication publishShutdown(long epoch) {
        if (mode == ProtocolMode.STICKY) {
            long found = mailbox.casShutdown(epoch);
            if (found == 0) {
                ringIfSleeping();
            }
            return found == 0 ? new ShutdownPublication(true, epoch) : new ShutdownPublication(false, found);
        }
        if (epoch == 0) {
            throw new MailboxException("shutdown epoch must be non-zero: epoch=0 " + id);
        }
        long read = mailbox.stateAcquire();
        mailbox.storeTransition(read, SHUTDOWN, WriterRole.CLOSER, PARENT_PID);
        ringIfSleeping();
        return new ShutdownPublication(true, read);
    }

    /**
     * The doorbell's parent half (docs/MAILBOX.md, "The doorbell"): after a publish (the state-word CAS, the shutdown
     * CAS or the legacy store), a full fence, then the child's sleeping flag (volatile); only if it is set: the ring
     * word + 1, FUTEX_WAKE on it, and the child's extra doorbell (a Java child's pipe). The child stores its flag and
     * then re-checks these words, so one of the two sides sees the other (DoorbellLitmus). True if it rang: the wait
     * for the answer then starts by yielding ({@link IdleBackoff#afterRing()}).
     */
    private boolean ringIfSleeping() {
        VarHandle.fullFence();
        if (mailbox.sleepingVolatile() == 0) {
            return false;
        }
        mailbox.ringDoorbell();
        long address = ringAddress;
        if (address == 0) {
            address = Futex.address(mailbox.directRegion(), MailboxDescriptor.DOORBELL_RING_OFFSET);
            ringAddress = address;
        }
        Futex.wakeAll(address);
        Runnable extra = extraDoorbell;
        if (extra != null) {
            extra.run();
        }
        rings.incrementAndGet();
        return true;
    }

    /** Whether a shutdown has been published and is still visible to the child (legacy: the state word still reads SHUTDOWN). */
    public boolean shutdownVisible() {
        return mode == ProtocolMode.STICKY ? mailbox.shutdownAcquire() != 0 : state() == SHUTDOWN;
    }

    // ---------------------------------------------------------------- init

    /** Waits until the child reports INIT_READY or INIT_FAILED (or has moved past init), or the timeout passes. */
    public InitOutcome awaitInit(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        IdleBackoff backoff = new IdleBackoff();
        for (;;) {
            long word = mailbox.stateAcquire();
            int state = MailboxDescriptor.state(word);
            if (state == INIT_FAILED) {
                return InitOutcome.FAILED;
            }
            if (state != IDLE || MailboxDescriptor.seq(word) != 0) {
                return InitOutcome.READY;
            }
            if (System.nanoTime() - deadline >= 0) {
                return InitOutcome.TIMED_OUT;
            }
            backoff.idle();
        }
    }

    /** The error text the child left in the result area (e.g. why its init failed). */
    public String childErrorText() {
        return mailbox.errorText();
    }

    // ---------------------------------------------------------------- control and tasks

    /** Sends a control command and waits for its result: IDLE -> CONTROL_REQUEST, wait CONTROL_DONE, -> IDLE. */
    public CommandResult control(int opcode, long argument, Duration timeout) {
        commandLock.lock();
        try {
            sendControl(opcode, argument);
            return awaitControl(timeout);
        } finally {
            commandLock.unlock();
        }
    }

    /** Places a control command (IDLE or INIT_READY -> CONTROL_REQUEST) without waiting; returns its command id. */
    public long sendControl(int opcode, long argument) {
        return issue(KIND_CONTROL, CONTROL_REQUEST, opcode, argument);
    }

    /** Waits for the pending control command, collects its result and returns the mailbox to IDLE. */
    public CommandResult awaitControl(Duration timeout) {
        return await(KIND_CONTROL, CONTROL_DONE, timeout);
    }

    /** Places a task (IDLE or INIT_READY -> TASK_READY) without waiting; returns its command id. */
    public long submitTask(int opcode, long argument) {
        return issue(KIND_TASK, TASK_READY, opcode, argument);
    }

    /** Waits for the pending task, collects its result and returns the mailbox to IDLE. */
    public CommandResult awaitTask(Duration timeout) {
        return await(KIND_TASK, TASK_DONE, timeout);
    }

    /** {@link #submitTask} then {@link #awaitTask}. */
    public CommandResult runTask(int opcode, long argument, Duration timeout) {
        commandLock.lock();
        try {
            submitTask(opcode, argument);
            return awaitTask(timeout);
        } finally {
            commandLock.unlock();
        }
    }

    /** The id of the command still in the mailbox after a timeout, or 0. */
    public long pendingCommandId() {
        commandLock.lock();
        try {
            return pendingCommandId;
        } finally {
            commandLock.unlock();
        }
    }

    private long issue(String kind, int requestState, int opcode, long argument) {
        commandLock.lock();
        try {
            refuseWhenGone(kind);
            collectLate();
            if (pendingKind != null) {
                throw new MailboxException("command still in flight: " + id + " kind=" + pendingKind + " commandId=" + pendingCommandId
                        + " state=" + MailboxDescriptor.describe(mailbox.stateAcquire()));
            }
            long commandId = nextCommandId++;
            for (int attempt = 0;; attempt++) {
                long word = mailbox.stateAcquire();
                int state = MailboxDescriptor.state(word);
                if (state != IDLE && state != INIT_READY) {
                    throw new MailboxException("mailbox not idle: " + id + " kind=" + kind + " state=" + MailboxDescriptor.describe(word)
                            + " shutdown=" + mailbox.shutdownAcquire());
                }
                mailbox.writeCommand(commandId, opcode, argument);
                long issuedNanos = System.nanoTime();
                if (mailbox.transition(mode, word, requestState, WriterRole.PARENT, PARENT_PID) != MappedMailbox.TRANSITION_FAILED) {
                    pendingRang = ringIfSleeping();
                    pendingKind = kind;
                    pendingCommandId = commandId;
                    pendingIssuedNanos = issuedNanos;
                    journal.accept(new CommandIssued(issuedNanos, PARENT_PID, id.poolId(), closeId.getAsLong(), id.group(), id.index(),
                            kind, commandId, opcode, argument));
                    Runnable listener = commandIssuedListener;
                    if (listener != null) {
                        listener.run();
                    }
                    return commandId;
                }
                if (attempt > 100) { // only the child's INIT_READY can race us here; anything else is a bug
                    throw new MailboxException("state word keeps changing under the parent: " + id + " state=" + MailboxDescriptor.describe(mailbox.stateAcquire()));
                }
            }
        } finally {
            commandLock.unlock();
        }
    }

    private CommandResult await(String kind, int doneState, Duration timeout) {
        commandLock.lock();
        try {
            if (pendingKind == null && kind.equals(settledKind)) {
                CommandResult r = settled;
                settled = null;
                settledKind = null;
                return r;
            }
            if (!kind.equals(pendingKind)) {
                refuseWhenGone(kind);
                throw new MailboxException("no " + kind + " command pending: " + id + " pending=" + pendingKind);
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            IdleBackoff backoff = pendingRang ? IdleBackoff.afterRing() : new IdleBackoff();
            for (;;) {
                long word = mailbox.stateAcquire();
                if (MailboxDescriptor.state(word) == doneState && mailbox.resultId() == pendingCommandId) {
                    return complete(word);
                }
                if (goneReason != null) {
                    long failedId = pendingCommandId;
                    failPendingLocked();
                    throw new MailboxException("command failed: " + id + " kind=" + kind + " commandId=" + failedId
                            + " " + goneReason.get());
                }
                if (System.nanoTime() - deadline >= 0) {
                    int lastState = MailboxDescriptor.state(word);
                    journal.accept(new CommandTimedOut(System.nanoTime(), PARENT_PID, id.poolId(), closeId.getAsLong(), id.group(), id.index(),
                            kind, pendingCommandId, timeout.toNanos(), lastState));
                    throw new CommandTimedOutException("command timed out: " + id + " kind=" + kind + " commandId=" + pendingCommandId
                            + " timeoutMillis=" + timeout.toMillis() + " state=" + MailboxDescriptor.describe(word)
                            + " shutdown=" + mailbox.shutdownAcquire(), pendingCommandId, lastState);
                }
                backoff.idle();
            }
        } finally {
            commandLock.unlock();
        }
    }

    /** Reads the result published by {@code doneWord}, returns the mailbox to IDLE, journals completion. */
    private CommandResult complete(long doneWord) {
        CommandResult result = new CommandResult(pendingCommandId, mailbox.resultValue(), mailbox.errorCode(),
                mailbox.errorCode() == 0 ? "" : mailbox.errorText(), System.nanoTime() - pendingIssuedNanos);
        if (mailbox.transition(mode, doneWord, IDLE, WriterRole.PARENT, PARENT_PID) == MappedMailbox.TRANSITION_FAILED) {
            throw new MailboxException("state word changed after the child completed: " + id + " expected=" + MailboxDescriptor.describe(doneWord)
                    + " found=" + MailboxDescriptor.describe(mailbox.stateAcquire()));
        }
        journal.accept(new CommandCompleted(System.nanoTime(), PARENT_PID, id.poolId(), closeId.getAsLong(), id.group(), id.index(),
                pendingKind, result.commandId(), result.value(), result.errorCode(), result.elapsedNanos()));
        pendingKind = null;
        pendingCommandId = 0;
        Runnable listener = commandCompletedListener;
        if (listener != null) {
            listener.run();
        }
        return result;
    }

    private void refuseWhenGone(String kind) {
        Supplier<String> gone = goneReason;
        if (released || gone != null) {
            throw new MailboxException("mailbox closed: " + id + " kind=" + kind + " "
                    + (gone != null ? gone.get() : "mailbox released"));
        }
    }

    /**
     * The child is gone ({@code reason} names its exit): the command in the mailbox, if any, fails at once
     * (journaled CommandFailed) and every later command operation fails. Never blocks: when a caller is inside
     * an await, that caller fails the command itself on its next look at the mailbox. {@code reason} is called only
     * when a failure is reported (a close reaps every child: most have nothing pending and no later caller).
     */
    public void failPending(Supplier<String> reason) {
        goneReason = Objects.requireNonNull(reason, "reason");
        if (commandLock.tryLock()) {
            try {
                failPendingLocked();
            } finally {
                commandLock.unlock();
            }
        }
    }

    private void failPendingLocked() {
        if (pendingKind == null) {
            return;
        }
        int doneState = KIND_CONTROL.equals(pendingKind) ? CONTROL_DONE : TASK_DONE;
        if (!released && MailboxDescriptor.state(mailbox.stateAcquire()) == doneState
                && mailbox.resultId() == pendingCommandId) {
            settleLocked(); // it did complete before the child went: that is its end
            return;
        }
        lastCommandCompleted = false;
        journal.accept(new CommandFailed(System.nanoTime(), PARENT_PID, id.poolId(), closeId.getAsLong(), id.group(),
                id.index(), pendingKind, pendingCommandId, goneReason.get()));
        pendingKind = null;
        pendingCommandId = 0;
    }

    /**
     * Settles a command whose sender is not waiting for it (a {@link #sendControl} without its await), without
     * blocking: when the child has published the result, journals CommandCompleted and keeps the result for a
     * later await. Leaves the state word as it is (the closing side does not write it). True when no command is
     * pending any more; false when one still runs or a caller holds the mailbox (it settles it itself).
     */
    public boolean settlePending() {
        if (!commandLock.tryLock()) {
            return false;
        }
        try {
            if (pendingKind == null) {
                return true;
            }
            int doneState = KIND_CONTROL.equals(pendingKind) ? CONTROL_DONE : TASK_DONE;
            if (!released && MailboxDescriptor.state(mailbox.stateAcquire()) == doneState
                    && mailbox.resultId() == pendingCommandId) {
                settleLocked();
                return true;
            }
            return false;
        } finally {
            commandLock.unlock();
        }
    }

    private void settleLocked() {
        CommandResult result = new CommandResult(pendingCommandId, mailbox.resultValue(), mailbox.errorCode(),
                mailbox.errorCode() == 0 ? "" : mailbox.errorText(), System.nanoTime() - pendingIssuedNanos);
        journal.accept(new CommandCompleted(System.nanoTime(), PARENT_PID, id.poolId(), closeId.getAsLong(), id.group(),
                id.index(), pendingKind, result.commandId(), result.value(), result.errorCode(), result.elapsedNanos()));
        settled = result;
        settledKind = pendingKind;
        lastCommandCompleted = true;
        pendingKind = null;
        pendingCommandId = 0;
    }

    /** True when the last command settled without its caller completed; false when it failed (its child went). */
    public boolean lastCommandCompleted() {
        return lastCommandCompleted;
    }

    /**
     * Marks the mailbox released, unless a caller is inside a command operation right now (then false: try
     * again later). After this, every command operation fails without touching the record, so the record can be
     * freed and its offset reused.
     */
    public boolean tryRelease() {
        if (!commandLock.tryLock()) {
            return false;
        }
        try {
            released = true;
            return true;
        } finally {
            commandLock.unlock();
        }
    }

    /** Collects a timed-out command that the child has completed since; leaves a still-running one pending. */
    private void collectLate() {
        if (pendingKind == null || released) {
            return;
        }
        int doneState = KIND_CONTROL.equals(pendingKind) ? CONTROL_DONE : TASK_DONE;
        long word = mailbox.stateAcquire();
        if (MailboxDescriptor.state(word) == doneState && mailbox.resultId() == pendingCommandId) {
            complete(word);
        }
    }

    @Override
    public String toString() {
        return "MailboxHandle[" + id + " mode=" + mode + " offset=" + offset() + " state=" + MailboxDescriptor.describe(mailbox.stateAcquire()) + "]";
    }
}
