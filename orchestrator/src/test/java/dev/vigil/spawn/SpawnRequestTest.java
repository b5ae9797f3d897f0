package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Requests and redirects refuse what cannot work before anything is spawned. */
class SpawnRequestTest {
    @Test
    void defaultsAreStdinFromDevNullAndInheritedOutput() {
        SpawnRequest request = SpawnRequest.of("worker", "--id", "3");
        assertEquals(List.of("worker", "--id", "3"), request.argv());
        assertEquals(Redirect.DISCARD, request.stdin());
        assertEquals(Redirect.INHERIT, request.stdout());
        assertEquals(Redirect.INHERIT, request.stderr());
        assertNull(request.environment());
        assertNull(request.workDir());
        assertEquals("worker --id 3", request.commandLine());
    }

    @Test
    void anEmptyArgvIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> SpawnRequest.of(List.of()));
    }

    @Test
    void redirectsGoOnlyWhereTheyCanWork() {
        Path file = Path.of("/tmp/x");
        assertThrows(IllegalArgumentException.class, () -> SpawnRequest.of("a").withStdin(Redirect.writeTo(file)));
        assertThrows(IllegalArgumentException.class, () -> SpawnRequest.of("a").withStdout(Redirect.readFrom(file)));
        assertThrows(IllegalArgumentException.class, () -> new Redirect(Redirect.Kind.INHERIT, file));
        assertThrows(IllegalArgumentException.class, () -> new Redirect(Redirect.Kind.WRITE, null));
    }

    @Test
    void theEnvironmentIsCopied() {
        Map<String, String> env = new HashMap<>(Map.of("A", "1"));
        SpawnRequest request = SpawnRequest.of("a").withEnvironment(env);
        env.put("B", "2");
        assertEquals(Map.of("A", "1"), request.environment());
    }

    @Test
    void theReapModeSettingNamesPidfdOrWaitpid() {
        String before = System.getProperty(ReapMode.PROPERTY);
        try {
            System.setProperty(ReapMode.PROPERTY, "waitpid");
            assertEquals(ReapMode.WAITPID_BACKOFF, ReapMode.configured());
            System.setProperty(ReapMode.PROPERTY, "PIDFD");
            assertEquals(ReapMode.PIDFD_POLL, ReapMode.configured());
            System.setProperty(ReapMode.PROPERTY, "sleepy");
            assertThrows(IllegalArgumentException.class, ReapMode::configured);
        } finally {
            if (before == null) {
                System.clearProperty(ReapMode.PROPERTY);
            } else {
                System.setProperty(ReapMode.PROPERTY, before);
            }
        }
    }
}
