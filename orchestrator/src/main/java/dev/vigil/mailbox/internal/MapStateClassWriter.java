package dev.vigil.mailbox.internal;

import java.io.File;
import java.lang.reflect.Method;

import net.openhft.chronicle.values.ValueModel;
import net.openhft.compiler.CachedCompiler;

/**
 * A build step (orchestrator/pom.xml, phase process-classes): writes the class Chronicle Map would
 * otherwise generate and compile with javac, in process, the first time a map file is opened (its
 * global state, {@value #STATE_INTERFACE}{@code $$Native}). Chronicle Values looks for that class on
 * the class path before it compiles one, so with it in the orchestrator's jar no compiler runs at
 * start: javac was about a fifth of the time from launch to the first child spawned. The source is
 * Chronicle's own generator's, for the Chronicle version the build resolved.
 */
public final class MapStateClassWriter {
    /** Chronicle Map's value interface that Values implements at run time. */
    public static final String STATE_INTERFACE = "net.openhft.chronicle.hash.VanillaGlobalMutableState";

    private MapStateClassWriter() {
    }

    /** The name of the class Chronicle Values loads (or generates) for {@link #STATE_INTERFACE}. */
    public static String stateClassName() {
        return STATE_INTERFACE + "$$Native";
    }

    /** {@code MapStateClassWriter CLASSES_DIR}: compiles the class into CLASSES_DIR. */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: MapStateClassWriter CLASSES_DIR");
            System.exit(2);
        }
        Class<?> state = Class.forName(STATE_INTERFACE);
        String simpleName = stateClassName().substring(STATE_INTERFACE.lastIndexOf('.') + 1);
        Method generate = Class.forName("net.openhft.chronicle.values.Generators")
                .getDeclaredMethod("generateNativeClass", ValueModel.class, String.class);
        generate.setAccessible(true);
        String source = (String) generate.invoke(null, ValueModel.acquire(state), simpleName);
        try (CachedCompiler compiler = new CachedCompiler(null, new File(args[0]))) {
            compiler.loadFromJava(MapStateClassWriter.class.getClassLoader(), stateClassName(), source);
        }
    }
}
