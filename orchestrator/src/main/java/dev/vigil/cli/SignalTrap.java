package dev.vigil.cli;

import dev.vigil.journal.JournalException;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.function.IntConsumer;

/**
 * Installs a Java-level handler for a terminating signal (INT, TERM, HUP) through {@code sun.misc.Signal}
 * (module jdk.unsupported), in place of the JVM's shutdown. A signal ignored when the JVM started stays ignored
 * (HotSpot installs no handler for it): SIGHUP under {@code nohup}, SIGINT in a shell's background job (checked
 * by hand: {@code SigIgn} in /proc, the run went on). Reached reflectively because javac's "internal
 * proprietary API" warning cannot be suppressed under -Werror.
 */
final class SignalTrap {
    private SignalTrap() {
    }

    /** Runs {@code action} (with the signal number) on a JVM signal-dispatch thread when {@code name} arrives. */
    static void install(String name, IntConsumer action) {
        try {
            Class<?> signalClass = Class.forName("sun.misc.Signal");
            Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
            Object signal = signalClass.getConstructor(String.class).newInstance(name);
            int number = (int) signalClass.getMethod("getNumber").invoke(signal);
            Object handler = Proxy.newProxyInstance(SignalTrap.class.getClassLoader(), new Class<?>[] {handlerClass},
                    (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            action.accept(number);
                            return null;
                        }
                        return switch (method.getName()) {
                            case "hashCode" -> System.identityHashCode(proxy);
                            case "equals" -> proxy == args[0];
                            default -> "SignalTrap[" + name + "]";
                        };
                    });
            signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException | InstantiationException
                | InvocationTargetException e) {
            throw new IllegalStateException("cannot trap SIG" + name + ": " + JournalException.plain(e), e);
        }
    }
}
