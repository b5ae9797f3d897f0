package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Timeout;

import net.openhft.chronicle.hash.impl.util.jna.PosixFallocate;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.posix.ClockId;
import net.openhft.posix.PosixAPI;
import net.openhft.posix.internal.PosixAPIHolder;

/**
 * Chronicle's PosixAPI deferred to its first call answers as Chronicle's own binding does, binds only when called, and
 * never replaces an API Chronicle already chose.
 */
@Timeout(60)
class DeferredPosixApiTest {

    @Test
    void itIsBoundByItsFirstCallAndAnswersAsTheKernelDoes() {
        PosixAPI api = DeferredPosixApi.create();
        assertFalse(DeferredPosixApi.isBound(api), "made without binding");
        assertEquals(ProcessHandle.current().pid(), api.getpid());
        assertTrue(DeferredPosixApi.isBound(api), "bound by the call");
        long before = System.nanoTime();
        long monotonic = api.clock_gettime(ClockId.CLOCK_MONOTONIC); // a default method of the interface, through the proxy
        assertTrue(monotonic >= before && monotonic <= System.nanoTime(), "CLOCK_MONOTONIC, as System.nanoTime: " + monotonic);
    }

    /** What a new mailbox store does: Chronicle Map's fallocate and msync, through the installed API, without binding it. */
    @Test
    void aNewChronicleMapFileIsMadeWithoutBindingIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("store");
        synchronized (PosixAPIHolder.class) {
            PosixAPI chosen = PosixAPIHolder.POSIX_API;
            try {
                PosixAPIHolder.POSIX_API = null;
                DeferredPosixApi.install();
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    PosixFallocate.fallocate(raf.getFD(), 0, 1 << 20);
                }
                assertEquals(1 << 20, Files.size(file), "fallocate (mode 0) extends the file");
                try (ChronicleMap<Long, Long> map = ChronicleMap.of(Long.class, Long.class).entries(100)
                        .createPersistedTo(dir.resolve("map").toFile())) { // fallocate, then msync of its header
                    map.put(1L, 2L);
                }
                try (ChronicleMap<Long, Long> map = ChronicleMap.of(Long.class, Long.class).entries(100)
                        .createPersistedTo(dir.resolve("map").toFile())) {
                    assertEquals(2L, map.get(1L), "the map reopens with its entry");
                }
                assertFalse(DeferredPosixApi.isBound(PosixAPI.posix()), "Chronicle's binding was not made for it");
            } finally {
                PosixAPIHolder.POSIX_API = chosen;
            }
        }
    }

    @Test
    void itIsInstalledOnlyWhereChronicleHasNotChosenAnApi() {
        synchronized (PosixAPIHolder.class) {
            PosixAPI chosen = PosixAPIHolder.POSIX_API;
            try {
                PosixAPIHolder.POSIX_API = null;
                assertTrue(DeferredPosixApi.install());
                PosixAPI installed = PosixAPI.posix();
                assertFalse(DeferredPosixApi.isBound(installed), "PosixAPI.posix() returns the deferred API, unbound");
                assertFalse(DeferredPosixApi.install(), "a second install keeps the first");
                assertSame(installed, PosixAPI.posix());
            } finally {
                PosixAPIHolder.POSIX_API = chosen;
            }
        }
    }
}
