package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

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
