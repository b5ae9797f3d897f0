package dev.vigil.child;

import dev.vigil.mailbox.MailboxException;
import dev.vigil.mailbox.MailboxHandoff;
import dev.vigil.mailbox.MappedMailbox;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;

/**
 * Entry point of a Java child process: {@code java -cp <orchestrator classes> dev.vigil.child.ChildMain [handler-class]}.
 * Needs only JDK classes and this module's classes (no Chronicle, no jnr); the handler class comes from the
 * argument or {@value #HANDLER_ENV}, the mailbox from the VIGIL_* handoff variables ({@link MailboxHandoff}).
 * Exit statuses are {@link ChildExitCodes}.
 */
public final class ChildMain {
    public static final String HANDLER_ENV = "VIGIL_CHILD_HANDLER";

    private ChildMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.err));
    }

    /** The whole child, with its environment and error stream passed in; returns the exit status. */
    public static int run(String[] args, Map<String, String> env, PrintStream err) {
        String handlerClass = args.length > 0 ? args[0] : env.get(HANDLER_ENV);
        if (handlerClass == null || handlerClass.isBlank()) {
            err.println("ERR: no handler: pass a class name or set " + HANDLER_ENV);
            return ChildExitCodes.ATTACH_FAILED;
        }
        MailboxHandoff handoff;
        MappedMailbox mailbox;
        try {
            handoff = MailboxHandoff.fromEnv(env);
            mailbox = MappedMailbox.map(handoff.mapFile(), handoff.offset());
            mailbox.checkHeader();
            if (handoff.mailboxLength() != 0 && handoff.mailboxLength() != mailbox.mailboxLength()) {
                throw new MailboxException("mailbox length mismatch: " + MailboxHandoff.LENGTH + "=" + handoff.mailboxLength()
                        + " mailbox=" + mailbox.mailboxLength());
            }
            if (mailbox.protocolMode() != handoff.mode()) {
                throw new MailboxException("protocol mismatch: " + MailboxHandoff.PROTOCOL + "=" + handoff.mode() + " mailbox=" + mailbox.protocolMode());
            }
        } catch (MailboxException | IllegalArgumentException e) {
            err.println("ERR: cannot attach: " + e.getMessage());
            return ChildExitCodes.ATTACH_FAILED;
        }
        int pid = (int) ProcessHandle.current().pid();
        ChildRuntime runtime = new ChildRuntime(mailbox, handoff.mode(), pid, ChildRuntime.Options.forProcess(env, handoff.parentPid()));
        return runtime.run(() -> instantiate(handlerClass), new ChildContext(handoff, mailbox, pid));
    }

    static ChildHandler instantiate(String className) {
        try {
            return handlerType(className, ChildMain.class.getClassLoader()).getConstructor().newInstance();
        } catch (InvocationTargetException e) {
            // The constructor's own exception, so that the init failure carries its words (the mailbox's error text has
            // 104 bytes: a wrapper's message and class names filled it before the reason came).
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException("handler constructor failed: handler=" + className + " error="
                    + ChildRuntime.describe(e.getCause()), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("cannot create handler: handler=" + className + " error=" + e, e);
        }
    }

    /**
     * The handler class named {@code className}, loaded from {@code loader} without initialising it:
     * a {@link ChildHandler} with a public no-argument constructor. Used by the child, and by spec
     * validation before anything is spawned.
     *
     * @throws ClassNotFoundException when the class is not there
     * @throws IllegalArgumentException naming what is wrong with it otherwise
     */
    public static Class<? extends ChildHandler> handlerType(String className, ClassLoader loader)
            throws ClassNotFoundException {
        Class<?> type = Class.forName(className.trim(), false, loader);
        if (!ChildHandler.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("not a " + ChildHandler.class.getName() + ": handler=" + className);
        }
        if (java.lang.reflect.Modifier.isAbstract(type.getModifiers())) {
            throw new IllegalArgumentException("abstract, cannot be created: handler=" + className);
        }
        try {
            type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("has no public no-argument constructor: handler=" + className, e);
        }
        return type.asSubclass(ChildHandler.class);
    }
}
