package dev.vigil.pool.internal.junitmode;

/** Initializes Chronicle core's {@code Jvm} with this class on the stack (the package documentation says why). */
public final class ChronicleCoreInit {
    private ChronicleCoreInit() {
    }

    /** Chronicle core's {@code Jvm}, initialized; a failure is thrown as the JVM reports it. */
    public static void initialize() throws ClassNotFoundException {
        Class.forName("net.openhft.chronicle.core.Jvm", true, ChronicleCoreInit.class.getClassLoader());
    }
}
