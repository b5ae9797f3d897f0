package dev.vigil.spawn;

/**
 * Told of every exit as the reaper collects it. Runs on the reaper thread: keep it short (hand work
 * to another thread), or the next exit waits. An exception it throws goes to the reaper thread's
 * uncaught-exception handler; reaping goes on.
 */
@FunctionalInterface
public interface ExitListener {
    void childExited(ChildProcess child, ExitStatus status);
}
