package dev.vigil.child;

import static dev.vigil.mailbox.MailboxState.*;

import dev.vigil.mailbox.IdleBackoff;
import dev.vigil.mailbox.MailboxDescriptor;
import dev.vigil.mailbox.MappedMailbox;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.mailbox.WriterRole;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The serve loop of a Java child (JDK classes only). Its duties, in order (docs/MAILBOX.md, "The child's duties"):
 * write its pid; build the handler and report INIT_READY (or INIT_FAILED and exit 3); then loop:
 * beat, check shutdown FIRST (sticky: the shutdown word; legacy: SHUTDOWN in the state word), serve a
 * CONTROL_REQUEST or TASK_READY found in the state word (result written, then CAS to *_DONE from the exact
 * word read), otherwise idle (spin, yield, park) and every {@code parentCheckNanos} verify the parent is alive.
 * On shutdown: stamp the ack once, run the handler's finalization (which beats), exit with its exit code.
 *
 * <p>The same class runs in-process on a thread over a mapped file (tests); {@code abort} stops it from outside.
 */
public final class ChildRuntime {
    public static final String SPIN_NANOS_ENV = "VIGIL_CHILD_SPIN_NANOS";
    public static final String PARENT_CHECK_MILLIS_ENV = "VIGIL_CHILD_PARENT_CHECK_MILLIS";
    /** The bound of one doorbell sleep in milliseconds (default {@value #DEFAULT_SLEEP_MILLIS}): the heartbeat period of a sleeping child. */
    public static final String SLEEP_MILLIS_ENV = "VIGIL_CHILD_SLEEP_MILLIS";
    /**
     * A Java child's default sleep bound: 30 s, not the C runtime's 2 s. Its pipe's end of file already tells it of its
     * parent's death, so a wake-up would only advance the heartbeat, and a JVM's wake-up costs several times a C child's
     * (docs/BENCHMARKS.md, "Idle children"); a close rings the child awake before it watches the heartbeat.
     */
    public static final long DEFAULT_SLEEP_MILLIS = 30_000;
    /** The descriptor of the child's doorbell pipe (read end), set by the orchestrator for Java children. */
    public static final String DOORBELL_FD_ENV = "VIGIL_DOORBELL_FD";
    /** {@code off}: no doorbell, the idle loop polls (spin, yield, park in steps of up to 1 ms): the pre-doorbell child. */
    public static final String DOORBELL_ENV = "VIGIL_CHILD_DOORBELL";

    /**
     * @param parentAlive      false once the parent is gone (null: never checked, for in-process runs)
     * @param parentCheckNanos how often the idle loop asks {@code parentAlive}
     * @param idleSpinNanos    how long the idle loop busy-spins before yielding and parking
     * @param abort            true stops the loop with {@link ChildExitCodes#ABORTED} (in-process runs)
     * @param doorbellFd       the doorbell pipe's read end (an idle loop sleeps on it), or -1: poll
     * @param sleepNanos       the bound of one doorbell sleep (then the loop beats and checks the parent)
     */
    public record Options(BooleanSupplier parentAlive, long parentCheckNanos, long idleSpinNanos, BooleanSupplier abort, int doorbellFd,
            long sleepNanos) {
        public Options(BooleanSupplier parentAlive, long parentCheckNanos, long idleSpinNanos, BooleanSupplier abort) {
            this(parentAlive, parentCheckNanos, idleSpinNanos, abort, -1, DEFAULT_SLEEP_MILLIS * 1_000_000L);
        }

        public static Options inProcess(BooleanSupplier abort) {
            return new Options(null, Long.MAX_VALUE, IdleBackoff.DEFAULT_SPIN_NANOS, abort);
        }

        /** A child process: the parent is alive while our parent pid is {@code parentPid}. */
        public static Options forProcess(Map<String, String> env, int parentPid) {
            IntSupplier currentParent = () -> ProcessHandle.current().parent().map(p -> (int) p.pid()).orElse(-1);
            long checkMillis = Long.parseLong(env.getOrDefault(PARENT_CHECK_MILLIS_ENV, "100"));
            long spin = Long.parseLong(env.getOrDefault(SPIN_NANOS_ENV, Long.toString(IdleBackoff.DEFAULT_SPIN_NANOS)));
            String fd = env.get(DOORBELL_FD_ENV);
            int doorbellFd = fd == null || fd.isBlank() || "off".equalsIgnoreCase(env.get(DOORBELL_ENV)) ? -1 : Integer.parseInt(fd.trim());
            long sleepMillis = Long.parseLong(env.getOrDefault(SLEEP_MILLIS_ENV, Long.toString(DEFAULT_SLEEP_MILLIS)));
            return new Options(parentPid > 0 ? () -> currentParent.getAsInt() == parentPid : null, checkMillis * 1_000_000L, spin, () -> false,
                    doorbellFd, sleepMillis * 1_000_000L);
        }
    }

    private final MappedMailbox mailbox;
    private final ProtocolMode mode;
    private final int pid;
    private final Options options;
    private final Cancellation cancellation = new MailboxCancellation();
    private boolean honoursShutdown = true;

    public ChildRuntime(MappedMailbox mailbox, ProtocolMode mode, int pid, Options options) {
        this.mailbox = mailbox;
        this.mode = mode;
        this.pid = pid;
        this.options = options;
    }

    /** Runs the child until shutdown (or init failure, a dead parent, abort); returns the exit status. */
    public int run(Supplier<? extends ChildHandler> handlerFactory, ChildContext context) {
        mailbox.childPidRelease(pid);
        ChildHandler handler;
        try {
            handler = handlerFactory.get();
            handler.onInit(context);
        } catch (Exception | LinkageError e) {
            reportInitFailed(e);
            return ChildExitCodes.INIT_FAILED;
        }
        honoursShutdown = handler.honoursShutdown();
        long initial = mailbox.stateAcquire();
        if (MailboxDescriptor.state(initial) == IDLE && MailboxDescriptor.seq(initial) == 0) {
            // a failed CAS means the parent already placed a command: init is implied, serve it
            mailbox.transition(mode, initial, INIT_READY, WriterRole.CHILD, pid);
        }
        IdleBackoff backoff = new IdleBackoff(options.idleSpinNanos(), IdleBackoff.DEFAULT_YIELD_NANOS, IdleBackoff.DEFAULT_MAX_PARK_NANOS);
        PipeDoorbell opened = options.doorbellFd() >= 0
                ? PipeDoorbell.open(options.doorbellFd(), options.sleepNanos(), mailbox::beat, this::workVisible, System.err) : null;
        try {
            return serveUntilExit(handler, backoff, opened);
        } finally {
            if (opened != null) {
                opened.close(); // before the exit: a reader left in its read costs the JVM's exit 0.3 s
            }
        }
    }

    private int serveUntilExit(ChildHandler handler, IdleBackoff backoff, PipeDoorbell opened) {
        PipeDoorbell doorbell = opened;
        long nextParentCheck = System.nanoTime() + options.parentCheckNanos();
        boolean woken = false;
        for (;;) {
            mailbox.beat();
            if (honoursShutdown && shutdownVisible()) {
                return finish(handler);
            }
            if (options.abort().getAsBoolean()) {
                return ChildExitCodes.ABORTED;
            }
            long word = mailbox.stateAcquire();
            int state = MailboxDescriptor.state(word);
            if (state == CONTROL_REQUEST || state == TASK_READY) {
                serve(handler, word, state == CONTROL_REQUEST);
                if (woken) {
                    Thread.yield(); // a parent that shares our core since our wake-up sees the answer now (docs/MAILBOX.md)
                    woken = false;
                }
                backoff.reset();
                continue;
            }
            if (doorbell != null && !doorbell.usable()) {
                doorbell = null; // end of file: the parent is probably gone; check now, poll from here on
                nextParentCheck = System.nanoTime();
            }
            long now = System.nanoTime();
            // With a working doorbell pipe the parent's death is its end of file (only the parent holds the write
            // end): no periodic look at /proc while asleep, which would cost an idle JVM more than the rest.
            if (options.parentAlive() != null && doorbell == null && now - nextParentCheck >= 0) {
                if (!options.parentAlive().getAsBoolean()) {
                    System.err.println("vigil child: parent gone, exiting: pid=" + pid + " status=" + ChildExitCodes.PARENT_GONE);
                    return ChildExitCodes.PARENT_GONE;
                }
                nextParentCheck = now + options.parentCheckNanos();
            }
            if (doorbell != null && backoff.drowsy()) {
                woken = true;
                sleep(doorbell, options.sleepNanos()); // until rung (or end of file); then beat and look again
            } else {
                backoff.idle();
            }
        }
    }

    /**
     * The doorbell (docs/MAILBOX.md, "The doorbell"): announce the sleep (volatile store), re-check for a request or
     * a shutdown (volatile loads: the parent publishes, fences, then reads the flag), and only then block in the
     * doorbell's read until rung (the doorbell's bound thread beats meanwhile, every {@code nanos}).
     */
    private void sleep(PipeDoorbell doorbell, long nanos) {
        mailbox.sleepingVolatile(1);
        if (!workVisible()) {
            doorbell.await(nanos);
        }
        mailbox.sleepingVolatile(0);
    }

    private boolean workVisible() {
        int state = MailboxDescriptor.state(mailbox.stateVolatile());
        if (state == CONTROL_REQUEST || state == TASK_READY) {
            return true;
        }
        return honoursShutdown && (mode == ProtocolMode.STICKY ? mailbox.shutdownVolatile() != 0 : state == SHUTDOWN);
    }

    private boolean shutdownVisible() {
        return mode == ProtocolMode.STICKY
                ? mailbox.shutdownAcquire() != 0
                : MailboxDescriptor.state(mailbox.stateAcquire()) == SHUTDOWN;
    }

    private void serve(ChildHandler handler, long requestWord, boolean control) {
        long commandId = mailbox.commandId();
        int opcode = mailbox.opcode();
        long argument = mailbox.argument();
        long value = 0;
        int errorCode = 0;
        String errorText = null;
        try {
            value = control ? handler.onControl(opcode, argument, cancellation) : handler.onTask(opcode, argument, cancellation);
        } catch (ChildCommandException e) {
            errorCode = e.errorCode();
            errorText = e.getMessage();
        } catch (Exception e) {
            errorCode = ChildCommandException.HANDLER_FAILED;
            errorText = describe(e);
        }
        mailbox.writeResult(commandId, value, errorCode, errorText);
        // sticky: CAS from the exact word read before the handler; legacy: stored unconditionally
        if (mailbox.transition(mode, requestWord, control ? CONTROL_DONE : TASK_DONE, WriterRole.CHILD, pid) == MappedMailbox.TRANSITION_FAILED) {
            System.err.println("vigil child: state word changed while a command ran: pid=" + pid + " expected="
                    + MailboxDescriptor.describe(requestWord) + " found=" + MailboxDescriptor.describe(mailbox.stateAcquire()));
        }
    }

    private int finish(ChildHandler handler) {
        mailbox.casAck(System.nanoTime());
        try {
            handler.onShutdown(cancellation);
        } catch (Exception e) {
            System.err.println("vigil child: finalization failed: pid=" + pid + " error=" + e);
        }
        mailbox.beat();
        return handler.exitCode();
    }

    /**
     * A failure as the mailbox's error text carries it, as the Python runtime writes it: the exception's simple class
     * name, then its message ({@code IllegalArgumentException: VIGIL_DEMO_GATE: not 1/0 ...}); the package names took a
     * third of the 104 bytes before.
     */
    static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null || message.isEmpty() ? "" : ": " + message);
    }

    private void reportInitFailed(Throwable cause) {
        System.err.println("vigil child: init failed: pid=" + pid + " error=" + cause);
        mailbox.writeResult(0, 0, ChildCommandException.HANDLER_FAILED, "init failed: " + describe(cause));
        for (int attempt = 0; attempt < 1000; attempt++) {
            long word = mailbox.stateAcquire();
            if (mailbox.transition(mode, word, INIT_FAILED, WriterRole.CHILD, pid) != MappedMailbox.TRANSITION_FAILED) {
                return;
            }
        }
    }

    /** The handler's view: reads the shutdown request the same way the loop does, and beats on every poll. */
    private final class MailboxCancellation implements Cancellation {
        @Override
        public boolean shutdownRequested() {
            mailbox.beat();
            return honoursShutdown && shutdownVisible();
        }

        @Override
        public void beat() {
            mailbox.beat();
        }
    }
}
