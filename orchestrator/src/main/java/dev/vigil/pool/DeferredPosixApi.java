package dev.vigil.pool;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import net.openhft.posix.PosixAPI;
import net.openhft.posix.internal.PosixAPIHolder;
import net.openhft.posix.internal.jnr.JNRPosixAPI;
import net.openhft.posix.internal.noop.NoOpPosixAPI;

/**
 * Chronicle's PosixAPI, bound on its first call instead of in Chronicle core's class initialization.
 *
 * <p>Why: Chronicle core's {@code Jvm.<clinit>} calls {@code PosixAPI.posix()} unconditionally, which generates
 * Chronicle's jnr-ffi binding of ~70 libc functions with ASM and compiles x86 stubs for them: the largest piece of an
 * orchestrator's start (measured with {@code -Xlog:class+load}: ~0.37 s of the preload thread at load 10), although
 * nothing on the way to the first child calls it (Chronicle calls it for {@code msync} and Chronicle Map's
 * {@code fallocate}). {@code PosixAPI.posix()} keeps whatever {@link PosixAPIHolder#POSIX_API} already holds, so
 * installing this first moves that work to the first real call, where it is done exactly as Chronicle does it (the
 * jnr binding, or Chronicle's no-op API when it cannot load). Calls behave as before; only their first one is slower.
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
