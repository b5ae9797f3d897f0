package dev.vigil.pool;

import dev.vigil.journal.JournalException;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import dev.vigil.child.ChildMain;

/**
 * Where the child runtimes an orchestrator starts are: the JVM and the Java runtime's classes (the
 * orchestrator's own jar or classes directory, nothing else), the Python interpreter and the
 * {@code vigil_child} package, the native build directory and the C runtime as a shared library.
 *
 * @param pythonBinary {@value #PYTHON_PROPERTY} (or {@value #PYTHON_ENV}), default {@code python3} on PATH
 * @param pythonPackageDir the directory holding {@code vigil_child/}: {@value #PYTHON_DIR_PROPERTY}, else
 *                         {@code python/} of the source tree the native directory belongs to; empty when the
 *                         package is installed instead ({@code pip install ./python})
 */
public record ChildRuntimes(String javaBinary, String javaClassPath, String pythonBinary, Optional<Path> pythonPackageDir,
        Path nativeDir) {
    /**
     * HotSpot's thread-suspension signal, which bin/vigil moves off SIGUSR2 for the orchestrator's own JVM (so a
     * user's SIGUSR2 stops a run instead of crashing it). Not a child's: a pool's children do not inherit it (a Java
     * child whose stop signal is that real-time signal would have it taken by its JVM); a spec's env may still set it.
     */
    public static final String HOTSPOT_SUSPEND_SIGNAL_ENV = "_JAVA_SR_SIGNUM";
    public static final String PYTHON_PROPERTY = "vigil.python";
    public static final String PYTHON_ENV = "VIGIL_PYTHON";
    public static final String PYTHON_DIR_PROPERTY = "vigil.python.dir";
    /** Tells a Python child which C runtime library to load (the one built with this orchestrator). */
    public static final String PYTHON_LIBRARY_ENV = "VIGIL_CHILD_LIBRARY";
    /** The C child runtime as a shared library, in the native build directory. */
    public static final String CHILD_LIBRARY = "libvigil-child.so";

    /** The runtimes of this JVM, with the native programs in {@code nativeDir}. */
    public static ChildRuntimes locate(Path nativeDir) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String python = System.getProperty(PYTHON_PROPERTY, System.getenv().getOrDefault(PYTHON_ENV, "python3"));
        return new ChildRuntimes(java, locateJavaClassPath(), python, pythonPackageDir(nativeDir), nativeDir);
    }

    /** The C runtime library a Python child loads. */
    public Path childLibrary() {
        return nativeDir.resolve(CHILD_LIBRARY).toAbsolutePath();
    }

    private static String locateJavaClassPath() {
        try {
            return Path.of(ChildMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException | RuntimeException e) {
            throw new IllegalStateException("cannot locate the Java child runtime's classes: " + JournalException.plain(e), e);
        }
    }

    private static Optional<Path> pythonPackageDir(Path nativeDir) {
        String property = System.getProperty(PYTHON_DIR_PROPERTY);
        if (property != null && !property.isBlank()) {
            return Optional.of(Path.of(property).toAbsolutePath());
        }
        Path tree = nativeDir.toAbsolutePath().normalize().getParent(); // native/build -> native
        Path candidate = tree == null || tree.getParent() == null ? null : tree.getParent().resolve("python");
        return candidate != null && Files.isDirectory(candidate.resolve("vigil_child")) ? Optional.of(candidate) : Optional.empty();
    }
}
