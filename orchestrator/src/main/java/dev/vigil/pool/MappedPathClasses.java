package dev.vigil.pool;

import java.util.List;

/**
 * The classes with a static initializer that the threads touching mapped mailbox memory after an orchestrator opened
 * (the close engine, the ring drainer) would otherwise initialize first, initialized when it opens. The JVM raises the
 * memory fault of a read or write of a cut mailbox map at a later instruction; raised inside a class's static set-up it
 * fails that class for the rest of the JVM ("Could not initialize class X"), and every later pool of the orchestrator
 * with it. MappedPathClassesTest runs those paths (starts, commands, closes, a cut map in the middle of a close) in a
 * JVM of its own under {@code -Xlog:class+init} and fails naming any class they still initialize first that is not
 * here. Not covered: the hidden classes generated there (the journal's event writers, method-handle LambdaForms)
 * and dynamic proxies, which have no stable name to initialize ahead; nor the callers' threads (a pool's start and its
 * INIT_READY poll, commands), whose first pool initializes what they use.
 */
final class MappedPathClasses {
    /** Binary names; a name that no longer resolves fails the open (and the test) rather than being skipped. */
    static final List<String> CLASSES = List.of(
            "dev.vigil.close.CloseEngine$1",
            "dev.vigil.close.CloseMachine$1",
            "dev.vigil.close.CloseMachine$Phase",
            "dev.vigil.close.decision.ChildWatch$Seen",
            "dev.vigil.close.decision.CloseReport$Outcome",
            "dev.vigil.close.decision.CloseReport$ChildOutcome",
            "dev.vigil.mailbox.MailboxState",
            "dev.vigil.mailbox.WriterRole",
            "dev.vigil.mailbox.ProtocolMode",
            "dev.vigil.mailbox.MappedMailbox",
            "dev.vigil.journal.JournalException",
            "dev.vigil.journal.FieldCursor",
            "com.lmax.disruptor.TimeoutException",
            "java.util.regex.Pattern$Bound");

    private MappedPathClasses() {
    }

    /** Initializes every class of {@link #CLASSES} on the calling thread. */
    static void initialize() {
        ClassLoader loader = MappedPathClasses.class.getClassLoader();
        for (String name : CLASSES) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("class " + name + " of MappedPathClasses is gone: update its list", e);
            }
        }
    }
}
