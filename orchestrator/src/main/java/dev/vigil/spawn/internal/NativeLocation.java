package dev.vigil.spawn.internal;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;

/**
 * Where the native programs (native/build) are: system property {@code vigil.native.dir}, else
 * environment variable {@code VIGIL_NATIVE_DIR}, else the first {@code native/build} found walking
 * up from this class's jar or classes directory (so a build tree finds its own binaries).
 */
public final class NativeLocation {
    public static final String PROPERTY = "vigil.native.dir";
    public static final String ENVIRONMENT = "VIGIL_NATIVE_DIR";

    private NativeLocation() {
    }

    /** The native directory to use; never null, possibly not existing (callers check their binary). */
    public static Path nativeDir() {
        String property = System.getProperty(PROPERTY);
        if (property != null && !property.isBlank()) {
            return Path.of(property);
        }
        String environment = System.getenv(ENVIRONMENT);
        if (environment != null && !environment.isBlank()) {
            return Path.of(environment);
        }
        Path codeLocation = codeLocation();
        for (Path dir = codeLocation; dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("native").resolve("build");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        return codeLocation == null ? Path.of("native", "build") : codeLocation.resolve("native").resolve("build");
    }

    private static Path codeLocation() {
        CodeSource source = NativeLocation.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return null;
        }
        try {
            return Path.of(source.getLocation().toURI()).toAbsolutePath();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }
}
