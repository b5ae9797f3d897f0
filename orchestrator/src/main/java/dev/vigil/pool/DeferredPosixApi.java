package dev.vigil.pool;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import net.openhft.posix.MSyncFlag;
import net.openhft.posix.PosixAPI;
import net.openhft.posix.internal.PosixAPIHolder;
import net.openhft.posix.internal.jnr.JNRPosixAPI;
import net.openhft.posix.internal.noop.NoOpPosixAPI;

import dev.vigil.spawn.internal.Linux;

/**
 * Chronicle's PosixAPI, bound on its first call instead of in Chronicle core's class initialization.
 *
 * <p>Why: Chronicle core's {@code Jvm.<clinit>} calls {@code PosixAPI.posix()} unconditionally, which generates
 * Chronicle's jnr-ffi binding of ~70 libc functions with ASM and compiles x86 stubs for them: the largest piece of an
 * orchestrator's start (measured with {@code -Xlog:class+load}: ~0.37 s of the preload thread at load 10), although
 * nothing in a run calls it but Chronicle Map making a new file (a new mailbox store: {@code fallocate}, and
 * {@code msync} of its header), which goes to Vigil's own libc binding instead (Chronicle Queue's msync of released
 * chunks is off: {@code mappedFile.defaultSyncMode=NONE}).
 * {@code PosixAPI.posix()} keeps whatever {@link PosixAPIHolder#POSIX_API} already holds, so installing this first
 * moves that work to the first other call, where it is done exactly as Chronicle does it (the jnr binding, or
 * Chronicle's no-op API when it cannot load). Calls behave as before; only the first one is slower.
 */
final class DeferredPosixApi implements InvocationHandler {
    private volatile PosixAPI bound;

    private DeferredPosixApi() {
    }

    /**
     * Installs the deferred API unless Chronicle already chose one (then this does nothing).
     *
     * @return whether it was installed
     */
    static boolean install() {
        synchronized (PosixAPIHolder.class) {
            if (PosixAPIHolder.POSIX_API != null) {
                return false;
            }
            PosixAPIHolder.POSIX_API = create();
            return true;
        }
    }

    /** A deferred API, not installed: bound on its first call. */
    static PosixAPI create() {
        return (PosixAPI) Proxy.newProxyInstance(PosixAPI.class.getClassLoader(), new Class<?>[] {PosixAPI.class},
                new DeferredPosixApi());
    }

    /** Whether {@code api} is a deferred API whose binding has been made (by a call through it). */
    static boolean isBound(PosixAPI api) {
        return Proxy.isProxyClass(api.getClass()) && Proxy.getInvocationHandler(api) instanceof DeferredPosixApi d
                && d.bound != null;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> "DeferredPosixApi[" + bound + "]";
            };
        }
        // Chronicle Map's calls when it makes a new file (a new mailbox store): libc's fallocate and msync, as
        // Chronicle's binding calls them (0, or -1 with errno), through Vigil's own binding, which the spawner loads anyway.
        if (method.getName().equals("fallocate") && args.length == 4) {
            return Linux.calls().fallocate((int) args[0], (int) args[1], (long) args[2], (long) args[3]);
        }
        if (method.getName().equals("msync") && args.length == 3) {
            int flags = args[2] instanceof MSyncFlag flag ? flag.value() : (int) args[2];
            return Linux.calls().msync((long) args[0], (long) args[1], flags);
        }
        try {
            return method.invoke(bound(), args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private PosixAPI bound() {
        PosixAPI api = bound;
        if (api == null) {
            synchronized (this) {
                api = bound;
                if (api == null) {
                    // What PosixAPIHolder.loadPosixApi does on Linux.
                    try {
                        api = new JNRPosixAPI();
                    } catch (Throwable cannotLoad) {
                        api = new NoOpPosixAPI(cannotLoad.toString());
                    }
                    bound = api;
                }
            }
        }
        return api;
    }
}
