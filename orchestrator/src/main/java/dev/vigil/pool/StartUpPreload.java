package dev.vigil.pool;

import java.util.List;

import dev.vigil.pool.internal.junitmode.ChronicleCoreInit;

/**
 * Initializes, on a thread of its own, the classes whose static set-up is most of an orchestrator's start, while
 * the caller parses its command line and spec. Measured (JFR, a `vigil run` to its first child): the main thread
 * waited 1.1 s on Chronicle core's class initialization ({@code Jvm} loads Chronicle's PosixAPI, whose jnr-ffi
 * binding is generated with ASM at run time, and Affinity through JNA), done by whichever thread first touched
 * Chronicle; started here first, that work overlaps the command line and spec instead of following them.
 * Initialization is the JVM's own (one thread runs a class's static set-up, others wait for it), so this changes
 * only when the work happens. A failure here is left to the code that needs the class, which reports it. Chronicle's
 * PosixAPI, which that initialization binds, is first replaced by one bound on its first call ({@link DeferredPosixApi}):
 * nothing calls it on the way to the first child; and {@code Jvm} is initialized without loading Affinity
 * ({@link ChronicleCoreInit}).
 */
public final class StartUpPreload {
    /** In order of need, after Chronicle core (everything else waits on it): the spawner's libc binding first. */
    static final List<String> CLASSES = List.of(
            "dev.vigil.spawn.internal.Linux",
            "net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder",
            "net.openhft.chronicle.map.ChronicleMapBuilder",
            "com.lmax.disruptor.dsl.Disruptor");

    private StartUpPreload() {
    }

    /** Starts the preload (a daemon thread; it never delays the JVM's exit). */
    public static void start() {
        Thread t = new Thread(StartUpPreload::run, "vigil-preload");
        t.setDaemon(true);
        t.start();
    }

    private static void run() {
        DeferredPosixApi.install(); // before Chronicle core's Jvm, which would bind it (where its test mode does not)
        try {
            ChronicleCoreInit.initialize(); // without Affinity (JNA): dev.vigil.pool.internal.junitmode says how
        } catch (ClassNotFoundException | LinkageError e) {
            return; // the code that needs the class reports it
        }
        ClassLoader loader = StartUpPreload.class.getClassLoader();
        for (String name : CLASSES) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                return; // the code that needs the class reports it
            }
        }
    }
}
