package dev.vigil.child.demo;

/** A {@link DemoHandler} that finalizes slowly (VIGIL_DEMO_TEARDOWN_MILLIS, default 3000) while beating; other settings from the environment. */
public class SlowFinalizerHandler extends DemoHandler {
    public SlowFinalizerHandler() {
        super(DemoBehaviour.fromEnv(System.getenv()).withTeardown(Long.parseLong(System.getenv().getOrDefault(DemoBehaviour.TEARDOWN_MILLIS, "3000")), true));
    }
}
