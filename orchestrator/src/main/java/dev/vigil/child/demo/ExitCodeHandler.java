package dev.vigil.child.demo;

/** A {@link DemoHandler} that exits with VIGIL_DEMO_EXIT_CODE (default 7) after shutdown; other settings from the environment. */
public class ExitCodeHandler extends DemoHandler {
    public ExitCodeHandler() {
        super(DemoBehaviour.fromEnv(System.getenv()).withExitCode(Integer.parseInt(System.getenv().getOrDefault(DemoBehaviour.EXIT_CODE, "7"))));
    }
}
