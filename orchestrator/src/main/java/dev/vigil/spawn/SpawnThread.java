package dev.vigil.spawn;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The threads of this JVM that call posix_spawn. PR_SET_PDEATHSIG fires when the parent THREAD exits, not the
 * process, so a thread that spawns must outlive every child: these are started once, are daemons, and never return
 * (they end with the JVM, and so do the children). Several ({@value #THREADS_PROPERTY}, default 4): posix_spawnp
 * itself returns only once the shim runs, and on a loaded machine that is scheduling latency the others overlap.
 * They only fork: the shim's verdict is read by the thread that asked ({@link Spawner#spawnAll}).
 */
final class SpawnThread {
    static final String THREADS_PROPERTY = "vigil.spawner.threads";
    private static final BlockingQueue<FutureTask<?>> TASKS = new LinkedBlockingQueue<>();
    private static final java.util.Set<Thread> THREADS = startThreads(Math.max(1, Integer.getInteger(THREADS_PROPERTY, 4)));

    private SpawnThread() {
    }

    private static java.util.Set<Thread> startThreads(int count) {
        java.util.Set<Thread> threads = new java.util.HashSet<>();
        for (int i = 0; i < count; i++) {
            int[] slots = ShimLauncher.Slots.reserve(); // here, now: low descriptors (later ones would be higher)
            Thread thread = new Thread(() -> {
                ShimLauncher.Slots.adopt(slots);
                serve();
            }, count == 1 ? "vigil-spawner" : "vigil-spawner-" + i);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        return java.util.Set.copyOf(threads);
    }

    private static void serve() {
        while (true) {
            try {
                TASKS.take().run();
            } catch (InterruptedException e) {
                // Nobody may end this thread: its exit would SIGKILL every child (PDEATHSIG). Keep serving.
                Thread.interrupted();
            }
        }
    }

    /** Runs {@code work} on a spawner thread and returns its result; its exceptions come back unchanged. */
    static <T> T call(Callable<T> work) {
        return join(submit(work));
    }

    /**
     * Queues {@code work} for a spawner thread without waiting (on a spawner thread itself: runs it here, at once);
     * {@link #join} gives its result. Work queued together runs on the threads in order of queueing.
     */
    static <T> FutureTask<T> submit(Callable<T> work) {
        FutureTask<T> task = new FutureTask<>(work);
        if (THREADS.contains(Thread.currentThread())) {
            task.run();
        } else {
            TASKS.add(task);
        }
        return task;
    }

    /** The result of submitted work, its exceptions unchanged; waits through interrupts (the thread's flag is kept). */
    static <T> T join(FutureTask<T> task) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    // The spawn goes on regardless; waiting for it keeps its child from going untracked.
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw rethrow(e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException) {
            throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        throw new IllegalStateException("spawner thread failed", cause);
    }

    static boolean isSpawnerThread(Thread thread) {
        return THREADS.contains(thread);
    }
}
