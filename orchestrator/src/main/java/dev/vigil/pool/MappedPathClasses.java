package dev.vigil.pool;

import java.util.List;

import dev.vigil.journal.EventCodec;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.internal.Futex;

/**
 * What the threads touching mapped mailbox memory after an orchestrator opened (the close engine, the ring drainer,
 * the callers: a pool's start and its INIT_READY poll, commands) would otherwise initialize first, initialized when it
 * opens, on a thread of its own ({@code vigil-open-prepare}) that the open waits for before the ring drainer starts.
 * The JVM raises the memory fault of a read or write of a cut mailbox map at a later instruction; raised inside a
 * class's static set-up it fails that class for the rest of the JVM ("Could not initialize class X"), and every later
 * pool of the orchestrator with it. So: the named classes below; every journal event kind's layout and generated
 * writer, with the dynamic proxy of its annotations ({@link EventCodec#prepareEveryKind}); Chronicle Map's query
 * path ({@link #queried}); the futex binding. MappedPathClassesTest runs those paths (starts, commands, closes, a cut
 * map in the middle of a close) in a JVM of its own under {@code -Xlog:class+init} and fails naming any class they
 * still initialize first, named or not, but the JDK's LambdaForm classes (harmless: the test says why).
 */
final class MappedPathClasses {
    /** Binary names; a name that no longer resolves fails the open (and the test) rather than being skipped. */
    static final List<String> CLASSES = List.of(
            // the close engine and the ring drainer
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
            "java.util.regex.Pattern$Bound",
            // the callers: a pool's start (its mailboxes mapped, INIT_READY polled) and commands
            "dev.vigil.pool.Pool",
            "dev.vigil.pool.ExitPolicy",
            "dev.vigil.pool.ExitPolicy$Kind",
            "dev.vigil.pool.ChildKind",
            "dev.vigil.pool.ChildSpec$1",
            "dev.vigil.pool.ChildEnvironment",
            "dev.vigil.contain.CgroupPool",
            "dev.vigil.mailbox.MailboxHandle",
            "dev.vigil.mailbox.InitOutcome",
            "jnr.constants.platform.Signal",
            "jnr.constants.platform.linux.Signal",
            "jnr.constants.ConstantSet",
            "jnr.constants.PlatformConstants",
            "jnr.constants.PlatformConstants$PackageNameResolver",
            "java.util.stream.LongPipeline$StatelessOp",
            "java.util.AbstractList$RandomAccessSpliterator",
            "java.nio.file.Files$AcceptAllFilter",
            "jdk.internal.misc.ExtendedMapMode",
            "sun.nio.ch.FileChannelImpl$Unmapper",
            "java.lang.invoke.VarHandleByteArrayAsLongs",
            "java.lang.invoke.VarHandleByteArrayAsInts",
            // a method handle's invocation counter: with the journal's and the exit path's code compiled sooner
            // (vigil.jitFlags), a caller's thread made the first one after the open
            "java.lang.invoke.MethodHandleImpl$CountingWrapper",
            "java.util.concurrent.ConcurrentSkipListMap",
            "java.util.regex.ASCII",
            "java.net.InetAddress",
            "java.net.Inet4Address",
            "java.net.Inet6Address",
            "java.net.InetAddress$CachedAddresses",
            "sun.net.InetAddressCachePolicy");

    private MappedPathClasses() {
    }

    /** Initializes all of it on the calling thread. */
    static void initialize() {
        EventCodec.prepareEveryKind();
        ClassLoader loader = MappedPathClasses.class.getClassLoader();
        for (String name : CLASSES) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException("class " + name + " of MappedPathClasses is gone: update its list", e);
            }
        }
        try {
            Futex.warmUp(); // its libc binding's classes (also warmed for the first close: CloseEngine)
        } catch (RuntimeException | LinkageError e) {
            // no futex here (another architecture, no libc binding): the first ring says so where it happens
        }
    }

    /**
     * {@code store} once a lookup ran through it: Chronicle Map's query context and its stages (a dozen classes), which
     * a pool's first mailbox allocation would otherwise initialize on its caller's thread.
     */
    static MailboxStore queried(MailboxStore store) {
        store.lookup(new MailboxId("", "", 0)); // no pool is named ""
        return store;
    }
}
