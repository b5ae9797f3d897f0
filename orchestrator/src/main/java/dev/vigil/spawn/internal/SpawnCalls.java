package dev.vigil.spawn.internal;

import java.nio.file.Files;
import java.nio.file.Path;

import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;

/**
 * libvigil-spawn (native/src/spawn/vigil-spawn-lib.c): the shim started like posix_spawn, but the child keeps copies
 * of the descriptors below {@code keepBelow} only, instead of a copy of the whole table that its exec then closes
 * one by one (a cost per spawn that grew with the children already running: each holds a pidfd here).
 */
public interface SpawnCalls {
    /** The library's file name in the native directory. */
    String LIBRARY = "libvigil-spawn.so";

    /**
     * 0 with the child's pid in {@code pid[0]}, or the error number of the step that failed (the child is reaped
     * then). The child opens {@code openPath[i]} as {@code openFd[i]}, then dup2s {@code dupFrom[i]} onto
     * {@code dupTo[i]}, then execs {@code path}; {@code argv} and {@code envp} go as NULL-terminated arrays.
     */
    int vigil_spawn(@Out int[] pid, String path, CharSequence[] argv, CharSequence[] envp, int keepBelow,
            @In int[] openFd, CharSequence[] openPath, @In int[] openFlags, @In int[] openMode, int opens,
            @In int[] dupFrom, @In int[] dupTo, int dups);

    /** The library in {@code nativeDir}, or null when it is not there or cannot be bound (posix_spawn then). */
    static SpawnCalls in(Path nativeDir) {
        Path library = nativeDir.resolve(LIBRARY).toAbsolutePath();
        if (!Files.isRegularFile(library)) {
            return null;
        }
        try {
            return LibraryLoader.create(SpawnCalls.class).load(library.toString());
        } catch (RuntimeException | LinkageError unbound) {
            return null;
        }
    }
}
