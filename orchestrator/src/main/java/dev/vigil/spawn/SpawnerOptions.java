package dev.vigil.spawn;

import dev.vigil.spawn.internal.NativeLocation;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Settings of a {@link Spawner}.
 *
 * @param nativeDir where vigil-spawn-shim is: {@code vigil.native.dir} ({@code VIGIL_NATIVE_DIR}), default
 *                  the first {@code native/build} above the orchestrator's jar or classes directory
 * @param reapMode  how exits are learned: {@code vigil.reap.mode} ({@code VIGIL_REAP_MODE}) pidfd or waitpid,
 *                  default pidfd; pidfd falls back to waitpid by itself where pidfd_open is missing
 */
public record SpawnerOptions(Path nativeDir, ReapMode reapMode) {
    public SpawnerOptions {
        Objects.requireNonNull(nativeDir, "nativeDir");
        Objects.requireNonNull(reapMode, "reapMode");
    }

    /** The settings from system properties / environment, else the defaults. */
    public static SpawnerOptions defaults() {
        return new SpawnerOptions(NativeLocation.nativeDir(), ReapMode.configured());
    }

    public SpawnerOptions withNativeDir(Path dir) {
        return new SpawnerOptions(dir, reapMode);
    }

    public SpawnerOptions withReapMode(ReapMode mode) {
        return new SpawnerOptions(nativeDir, mode);
    }
}
