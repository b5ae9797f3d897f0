package dev.vigil.child;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.mailbox.MailboxHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The child runtimes a contract test runs against, started as real processes. */
public enum ChildKind {
    /** dev.vigil.child.ChildMain + DemoHandler, with only orchestrator/target/classes on its class path. */
    JAVA,
    /** native/build/vigil-demo-child. */
    C,
    /** python3 -m vigil_child with vigil_child.demo:DemoHandler, over native/build/libvigil-child.so. */
    PYTHON;

    /** The Python demo handler, twin of DemoHandler and vigil-demo-child. */
    public static final String PYTHON_DEMO_HANDLER = dev.vigil.pool.ChildSpec.PYTHON_DEMO_HANDLER;

    public static final int PARENT_PID = (int) ProcessHandle.current().pid();

    public static Path classesDir() {
        return Path.of(System.getProperty("vigil.root", "..")).resolve("orchestrator/target/classes");
    }

    public static Path nativeDir() {
        return Path.of(System.getProperty("vigil.native.dir", "../native/build"));
    }

    /** The interpreter of Python children: -Dvigil.python, else python3 on PATH. */
    public static String pythonBin() {
        return System.getProperty(dev.vigil.pool.ChildRuntimes.PYTHON_PROPERTY, "python3");
    }

    public static Path pythonDir() {
        return Path.of(System.getProperty("vigil.root", "..")).resolve("python");
    }

    public static Path javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** Quick-start flags for short-lived test children; the benchmark passes its own. */
    public static final List<String> TEST_JVM_FLAGS = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m", "-Xss512k");

    public List<String> argv(List<String> jvmFlags) {
        if (this == C) {
            Path demo = nativeDir().resolve("vigil-demo-child");
            if (!Files.isExecutable(demo)) {
                throw new IllegalStateException("native part unavailable because " + demo + " is missing: build native/ first (mvn -pl native)");
            }
            return List.of(demo.toString());
        }
        if (this == PYTHON) {
            Path library = nativeDir().resolve(dev.vigil.pool.ChildRuntimes.CHILD_LIBRARY);
            if (!Files.isRegularFile(library)) {
                throw new IllegalStateException("native part unavailable because " + library + " is missing: build native/ first (mvn -pl native)");
            }
            return List.of(pythonBin(), "-m", dev.vigil.pool.ChildSpec.PYTHON_MAIN_MODULE);
        }
        List<String> argv = new java.util.ArrayList<>();
        argv.add(javaBin().toString());
        argv.addAll(jvmFlags);
        argv.add("-cp");
        argv.add(classesDir().toString());
        argv.add(ChildMain.class.getName());
        return argv;
    }

    public Map<String, String> env(MailboxHandle handle, DemoBehaviour behaviour) {
        Map<String, String> env = new HashMap<>(handle.handoffEnv(PARENT_PID));
        env.putAll(behaviour.toEnv());
        env.put(ChildMain.HANDLER_ENV, this == PYTHON ? PYTHON_DEMO_HANDLER : DemoHandler.class.getName());
        if (this == PYTHON) {
            env.put("PYTHONPATH", pythonDir().toAbsolutePath().toString());
            env.put(dev.vigil.pool.ChildRuntimes.PYTHON_LIBRARY_ENV,
                    nativeDir().resolve(dev.vigil.pool.ChildRuntimes.CHILD_LIBRARY).toAbsolutePath().toString());
        }
        return env;
    }

    public SpawnedChild spawn(MailboxHandle handle, DemoBehaviour behaviour, Path log) {
        return SpawnedChild.spawn(argv(TEST_JVM_FLAGS), env(handle, behaviour), log);
    }
}
