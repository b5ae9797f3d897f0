package dev.vigil.fleet;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/** The id a host ships under: given, or VIGIL_HOST_ID, or the hostname. Stable across restarts. */
final class HostId {
    private HostId() {
    }

    static String resolve(String given) {
        String id = given != null ? given : System.getenv("VIGIL_HOST_ID");
        if (id == null || id.isBlank()) {
            id = hostname();
        }
        id = id.strip();
        if (id.isEmpty() || id.contains("|")) {
            throw new FleetInputException("host id='" + id + "' must be non-empty and without '|' (the key separator)");
        }
        return id;
    }

    private static String hostname() {
        try {
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!h.isEmpty()) {
                return h;
            }
        } catch (IOException ignored) {
            // not Linux: ask the resolver
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            throw new FleetInputException("no host id: the hostname is unknown (" + e.getMessage() + "); give --host-id");
        }
    }
}
