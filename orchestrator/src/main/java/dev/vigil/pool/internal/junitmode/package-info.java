/**
 * Chronicle core's start-up without its optional native bindings. {@code net.openhft.chronicle.core.Jvm}'s static
 * set-up binds Chronicle's PosixAPI and loads OpenHFT Affinity, through JNA (which extracts its native library and runs
 * {@code /sbin/ldconfig -p} in a child process), unless some thread's stack holds a class whose name contains
 * {@code ".junit"} (its own test detection, {@code Jvm.isJUnitTest0}; nothing else reads that answer). Vigil uses
 * neither: the PosixAPI is bound on its first call ({@link dev.vigil.pool.DeferredPosixApi}), and no Vigil thread is
 * pinned to a core. This package's name carries that marker; its one class runs {@code Jvm}'s set-up from the preload
 * thread ({@link dev.vigil.pool.StartUpPreload}), so a {@code vigil run} does not pay for them (~0.1 s of CPU idle,
 * 0.24 s at load 9, on the way to the first child). {@code StartPathTest} (e2e) fails if Affinity is loaded again.
 */
package dev.vigil.pool.internal.junitmode;
