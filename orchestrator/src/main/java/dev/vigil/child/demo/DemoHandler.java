package dev.vigil.child.demo;

import dev.vigil.child.Cancellation;
import dev.vigil.child.ChildCommandException;
import dev.vigil.child.ChildContext;
import dev.vigil.child.ChildHandler;
import dev.vigil.mailbox.IdleBackoff;
import dev.vigil.mailbox.MappedMailbox;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.concurrent.locks.LockSupport;

/**
 * A configurable child for tests and demos, the Java twin of {@code native/build/vigil-demo-child}
 * (same opcodes, same {@link DemoBehaviour} settings). Opcodes: {@link #OP_ECHO} returns the argument;
 * {@link #OP_PIPE_PINGPONG} echoes {@code argument} single bytes from stdin to stdout (the benchmark's
 * baseline); {@link #OP_FAIL} fails with error code {@code argument}; {@link #OP_EXIT} ends the process at
 * once with status {@code argument}; {@link #OP_COOPERATIVE_SLEEP} sleeps {@code argument} ms polling the
 * shutdown request and returns 1 if it was cut short; {@link #OP_BLOCKING_SLEEP} sleeps {@code argument} ms
 * without beating or looking at shutdown (a device call). Tasks take the same opcodes.
 */
public class DemoHandler implements ChildHandler {
    public static final int OP_ECHO = 1;
    public static final int OP_PIPE_PINGPONG = 2;
    public static final int OP_FAIL = 3;
    public static final int OP_EXIT = 4;
    public static final int OP_COOPERATIVE_SLEEP = 5;
    /** Sleeps {@code argument} ms like a device call: neither beats nor looks at shutdown until it returns. */
    public static final int OP_BLOCKING_SLEEP = 6;

    private final DemoBehaviour behaviour;
    private MappedMailbox mailbox;

    public DemoHandler() {
        this(DemoBehaviour.fromEnv(System.getenv()));
    }

    protected DemoHandler(DemoBehaviour behaviour) {
        this.behaviour = behaviour;
    }

    public DemoBehaviour behaviour() {
        return behaviour;
    }

    @Override
    public void onInit(ChildContext context) {
        if (behaviour.failInit()) {
            throw new IllegalStateException("demo init failure requested (" + DemoBehaviour.FAIL_INIT + ")");
        }
        mailbox = context.mailbox();
    }

    @Override
    public long onControl(int opcode, long argument, Cancellation cancellation) throws IOException {
        if (behaviour.gate()) {
            IdleBackoff backoff = new IdleBackoff(0, 0, 1_000_000);
            while (mailbox.gateAcquire() == 0) {
                backoff.idle();
            }
        }
        if (behaviour.delayMicros() > 0) {
            long until = System.nanoTime() + behaviour.delayMicros() * 1_000;
            while (System.nanoTime() - until < 0) {
                LockSupport.parkNanos(Math.min(until - System.nanoTime(), 1_000_000));
            }
        }
        switch (opcode) {
            case OP_ECHO:
                return argument;
            case OP_PIPE_PINGPONG:
                return pingPong(argument);
            case OP_FAIL:
                throw new ChildCommandException((int) Math.max(1, argument), "demo failure requested");
            case OP_EXIT:
                Runtime.getRuntime().halt((int) argument);
                return 0;
            case OP_BLOCKING_SLEEP:
                long wakeAt = System.nanoTime() + argument * 1_000_000;
                while (System.nanoTime() - wakeAt < 0) {
                    LockSupport.parkNanos(wakeAt - System.nanoTime());
                }
                return 0;
            case OP_COOPERATIVE_SLEEP:
                long until = System.nanoTime() + argument * 1_000_000;
                while (System.nanoTime() - until < 0) {
                    if (cancellation.shutdownRequested()) {
                        return 1;
                    }
                    LockSupport.parkNanos(1_000_000);
                }
                return 0;
            default:
                throw new ChildCommandException(ChildCommandException.UNSUPPORTED, "unknown demo opcode: opcode=" + opcode);
        }
    }

    @Override
    public long onTask(int opcode, long argument, Cancellation cancellation) throws IOException {
        return onControl(opcode, argument, cancellation);
    }

    @Override
    public void onShutdown(Cancellation cancellation) {
        long until = System.nanoTime() + behaviour.teardownMillis() * 1_000_000;
        while (System.nanoTime() - until < 0) {
            if (behaviour.teardownBeats()) {
                cancellation.beat();
            }
            LockSupport.parkNanos(Math.min(10_000_000, Math.max(0, until - System.nanoTime())));
        }
    }

    @Override
    public int exitCode() {
        return behaviour.exitCode();
    }

    @Override
    public boolean honoursShutdown() {
        return !behaviour.ignoreShutdown();
    }

    private static long pingPong(long rounds) throws IOException {
        // unbuffered stdin/stdout, one byte each way per round, as a pipe client would do it
        FileInputStream in = new FileInputStream(FileDescriptor.in);
        FileOutputStream out = new FileOutputStream(FileDescriptor.out);
        for (long i = 0; i < rounds; i++) {
            int b = in.read();
            if (b < 0) {
                return i;
            }
            out.write(b);
        }
        return rounds;
    }
}
