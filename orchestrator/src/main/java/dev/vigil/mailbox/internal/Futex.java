package dev.vigil.mailbox.internal;

import java.nio.ByteBuffer;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * The parent's half of the C child's doorbell: {@code FUTEX_WAKE} on a word of a shared file mapping (no
 * {@code FUTEX_PRIVATE_FLAG}: the kernel keys a shared futex by file and offset, so the child's wait on its own
 * mapping of the same page is woken). Bound through jnr-ffi; loaded on first use only, so the Java child runtime,
 * which shares this module's classes, never loads it.
 */
public final class Futex {
    private static final int FUTEX_WAKE = 1;

    /** syscall(2) with every argument as a long (no stale upper register bits). */
    public interface Calls {
        long syscall(long number, long arg1, long arg2, long arg3, long arg4, long arg5, long arg6);
    }

    private static final class Bound {
        static final Calls CALLS = LibraryLoader.create(Calls.class).load("c");
        static final Runtime RUNTIME = Runtime.getRuntime(CALLS);
        static final long SYS_FUTEX = sysFutex();
    }

    private Futex() {
    }

    /** The address of byte {@code offset} of a direct buffer (a mapped mailbox region). */
    public static long address(ByteBuffer direct, int offset) {
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer: " + direct);
        }
        return Pointer.wrap(Bound.RUNTIME, direct).address() + offset;
    }

    /**
     * Binds the syscall now (jnr-ffi generates its stub on first use: tens of milliseconds on a cold JVM) and wakes
     * a word of a scratch buffer that nobody waits on: the orchestrator calls it when it opens, so the first close's
     * first ring does not delay its broadcast.
     */
    public static void warmUp() {
        ByteBuffer scratch = ByteBuffer.allocateDirect(64);
        wakeAll(address(scratch, 0));
    }

    /** Wakes every waiter on the 32-bit word at {@code address}; returns how many woke (or -1). */
    public static int wakeAll(long address) {
        return (int) Bound.CALLS.syscall(Bound.SYS_FUTEX, address, FUTEX_WAKE, Integer.MAX_VALUE, 0, 0, 0);
    }

    private static long sysFutex() {
        String arch = System.getProperty("os.arch");
        switch (arch) {
            case "amd64":
            case "x86_64":
                return 202;
            case "aarch64":
                return 98;
            default:
                throw new UnsupportedOperationException("futex syscall number unknown for os.arch=" + arch + " (x86-64 and aarch64 only)");
        }
    }
}
