package dev.vigil.spawn;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The one thread of this JVM that calls posix_spawn. PR_SET_PDEATHSIG fires when the parent
 * THREAD exits, not the process, so the thread that spawns must outlive every child: this one is
 * started once, is a daemon, and never returns (it ends with the JVM, and so do the children).
 */
final class SpawnThread {
    private static final BlockingQueue<FutureTask<?>> TASKS = new LinkedBlockingQueue<>();
    private static final Thread THREAD = startThread();

    private SpawnThread() {
    }

    private static Thread startThread() {
        Thread thread = new Thread(SpawnThread::serve, "vigil-spawner");
        thread.setDaemon(true);
        thread.start();
        return thread;
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

    /** Runs {@code work} on the spawner thread and returns its result; its exceptions come back unchanged. */
    static <T> T call(Callable<T> work) {
        if (Thread.currentThread() == THREAD) {
            return runHere(work);
        }
        FutureTask<T> task = new FutureTask<>(work);
        TASKS.add(task);
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

    private static <T> T runHere(Callable<T> work) {
        try {
            return work.call();
        } catch (Exception e) {
            throw rethrow(e);
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
        return thread == THREAD;
    }
}
