package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;

/** Where the native binaries are in a test run, and the after-test leftover check. */
final class SpawnFixture {
    private SpawnFixture() {
    }

    static Path nativeDir() {
        String dir = System.getProperty("vigil.native.dir");
        return dir != null ? Path.of(dir) : Path.of(System.getProperty("vigil.root", "..")).resolve("native/build");
    }

    static Path exitStamp() {
        return nativeDir().resolve("vigil-exit-stamp");
    }

    static Spawner spawner(ReapMode mode) {
        return Spawner.start(new SpawnerOptions(nativeDir(), mode));
    }

    /** No child of this JVM is left, alive or zombie (waits up to 2 s for init-reparented stragglers to vanish). */
    static void assertNoChildrenLeft() throws InterruptedException {
        long deadline = System.nanoTime() + 2_000_000_000L;
        List<ProcFs.Stat> left = ProcFs.ourChildren();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            left = ProcFs.ourChildren();
        }
        assertEquals(List.of(), left, "children of the test JVM left behind");
    }
}
