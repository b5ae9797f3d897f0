/**
 * Spawning and reaping children (DESIGN section 5; contract in docs/SPAWNING.md).
 *
 * <pre>
 *  any thread --spawn()--> vigil-spawner threads (four per JVM, never exit: PDEATHSIG follows them)
 *                            | pipe2(O_CLOEXEC), vigil_spawn / posix_spawnp(vigil-spawn-shim ...), pidfd_open
 *                            v
 *                          shim: PDEATHSIG, getppid check, setpgid, chdir, close fds, signals, execvp
 *                            | status pipe: EOF = exec ok / {stage, errno} = SpawnException
 *                            v
 *  Reaper thread (one per Spawner):  epoll_wait(one set: eventfd, every pidfd, -1)
 *  or an ExitWatch's owner (the close engine, for the children it closes: their pidfds moved into its own set)
 *                            | EPOLLIN on a pidfd -> out of the set, waitid(that pid, WNOWAIT) peek, waitpid(that pid, WNOHANG) -> ExitStatus
 *                            v
 *                          ChildProcess.onExit() completes, ExitListeners are told (once: Reaper.reapNow)
 * </pre>
 *
 * Signals go through the child's pidfd and are refused once it is reaped (a child's lock orders
 * the reap against every signal). {@code .internal} holds the jnr-ffi bindings and the shim
 * protocol constants; it is not API.
 */
package dev.vigil.spawn;
