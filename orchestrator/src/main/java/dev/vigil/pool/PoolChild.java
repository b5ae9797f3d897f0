package dev.vigil.pool;

import java.util.concurrent.CompletableFuture;

import dev.vigil.close.ChildExit;
import dev.vigil.close.ClosingChild;
import dev.vigil.close.ShutdownDelivery;
import dev.vigil.close.decision.MailboxWords;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.mailbox.MailboxDescriptor;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.mailbox.RingDrainer;
import dev.vigil.mailbox.ShutdownPublication;
import dev.vigil.mailbox.WriterRole;
import dev.vigil.spawn.ChildProcess;
import dev.vigil.spawn.SignalException;

/** One child of a pool: its process, its mailbox (none for a plain executable), its place in the pool. */
public final class PoolChild implements ClosingChild {
    private final String group;
    private final int index;
    private final ChildSpec spec;
    private final ChildProcess process;
    private final MailboxHandle mailbox;
    private final Orchestrator orchestrator;
    private final CompletableFuture<ChildExit> exit;
    private volatile boolean released;
    /** Its own log files, or null when its output went elsewhere. */
    private volatile dev.vigil.spawn.ChildLog log;
    /** Where its stderr log file stood before its spawn: its tail is what came after. */
    private volatile dev.vigil.spawn.ChildLog.Mark stderrMark;

    PoolChild(String group, int index, ChildSpec spec, ChildProcess process, MailboxHandle mailbox, Orchestrator orchestrator) {
        this.group = group;
        this.index = index;
        this.spec = spec;
        this.process = process;
        this.mailbox = mailbox;
        this.orchestrator = orchestrator;
        this.exit = process.onExit().thenApply(s -> new ChildExit(s.exitCode(), s.signal(), s.reapedNanos()));
    }

    /** The child's own stdout and stderr log files, or null when its output went elsewhere (Pool.Builder#childOutput). */
    public dev.vigil.spawn.ChildLog log() {
        return log;
    }

    void log(dev.vigil.spawn.ChildLog childLog, dev.vigil.spawn.ChildLog.Mark stderrBefore) {
        this.stderrMark = stderrBefore;
        this.log = childLog;
    }

    @Override
    public java.nio.file.Path stderrLog() {
        dev.vigil.spawn.ChildLog l = log;
        return l == null ? null : l.stderr();
    }

    @Override
    public String stderrTail() {
        dev.vigil.spawn.ChildLog l = log;
        return l == null ? null : dev.vigil.spawn.ChildLog.tail(l.stderr(), stderrMark);
    }

    @Override
    public String group() {
        return group;
    }

    @Override
    public int index() {
        return index;
    }

    @Override
    public int pid() {
        return process.pid();
    }

    @Override
    public String kind() {
        return spec.kind().name();
    }

    public ChildSpec spec() {
        return spec;
    }

    /** The spawned process (pidfd signals, exit status). */
    public ChildProcess process() {
        return process;
    }

    /** The parent's side of the mailbox; null for a plain executable. */
    public MailboxHandle mailbox() {
        return mailbox;
    }

    /** True once close freed the mailbox (only ever after the reap). */
    public boolean mailboxReleased() {
        return released;
    }

    @Override
    public boolean hasMailbox() {
        return mailbox != null;
    }

    @Override
    public ShutdownDelivery deliverShutdown(long epoch) {
        if (mailbox == null) {
            // A plain executable's stop signal goes to its process group: a script's own children stop with it. Then
            // SIGCONT, as systemd sends it after the kill signal (SendSIGCONT=yes): a stopped process holds the stop
            // signal pending, and a self-stopped sh that would exit on TERM was closed STOPPED, killed after the
            // window and grace. A process stopped by a tracer stays stopped (ptrace stops ignore SIGCONT).
            signalProcessGroup(spec.stopSignal());
            int sigcont = jnr.constants.platform.Signal.SIGCONT.intValue();
            if (spec.stopSignal() != sigcont) {
                signalProcessGroup(sigcont);
            }
            return ShutdownDelivery.signal(spec.stopSignal(), MonotonicClock.nanos());
        }
        long at = MonotonicClock.nanos(); // just before the CAS: the word is visible no earlier than this
        ShutdownPublication p = mailbox.publishShutdown(epoch);
        String channel = mailbox.mode() == ProtocolMode.LEGACY ? ShutdownDelivery.STATE_WORD : ShutdownDelivery.SHUTDOWN_WORD;
        return new ShutdownDelivery(channel, p.won(), p.observed(), at);
    }

    @Override
    public MailboxWords mailboxWords() {
        if (mailbox == null || released) {
            return null;
        }
        long word = mailbox.stateWord();
        int state = MailboxDescriptor.state(word);
        return new MailboxWords(state, MailboxState.name(state), WriterRole.nameOf(MailboxDescriptor.writerCode(word)),
                MailboxDescriptor.seq(word), mailbox.mode() == ProtocolMode.LEGACY, mailbox.shutdownWord(),
                mailbox.ackNanos(), mailbox.heartbeat());
    }

    @Override
    public java.nio.file.Path mailboxFile() {
        return mailbox == null ? null : mailbox.mapFile();
    }

    @Override
    public CompletableFuture<ChildExit> exit() {
        return exit;
    }

    @Override
    public boolean signal(int signal) {
        return sendUnlessReaped(() -> process.signal(signal));
    }

    @Override
    public boolean signalProcessGroup(int signal) {
        return sendUnlessReaped(() -> process.signalProcessGroup(signal));
    }

    /** Sends; false when the child was reaped first (an expected race at close), otherwise failures propagate. */
    private boolean sendUnlessReaped(Runnable send) {
        try {
            send.run();
            return true;
        } catch (SignalException e) {
            if (process.isReaped()) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void drainTransitions(long closeId) {
        if (mailbox == null) {
            return;
        }
        RingDrainer drainer = orchestrator.drainer();
        if (process.isReaped()) {
            drainer.drainFinal(mailbox, closeId);
        } else {
            drainer.drain(mailbox, closeId);
        }
    }

    @Override
    public long mailboxOffset() {
        return mailbox == null ? -1 : mailbox.offset();
    }

    @Override
    public void failPendingCommands(java.util.function.Supplier<String> reason) {
        if (mailbox != null) {
            mailbox.failPending(reason);
        }
    }

    @Override
    public boolean tryReleaseMailbox() {
        if (mailbox == null || released) {
            return true;
        }
        if (!process.isReaped()) {
            throw new IllegalStateException("group=" + group + " child=" + index + " pid=" + pid()
                    + " mailbox release refused: child not reaped");
        }
        if (!mailbox.tryRelease()) {
            return false; // a caller is inside a command on it; after tryRelease none can enter
        }
        orchestrator.drainer().forget(mailbox);
        orchestrator.mailboxes().release(mailbox.id());
        released = true;
        return true;
    }

    @Override
    public String toString() {
        return "group=" + group + " child=" + index + " pid=" + pid() + " kind=" + spec.kind();
    }
}
