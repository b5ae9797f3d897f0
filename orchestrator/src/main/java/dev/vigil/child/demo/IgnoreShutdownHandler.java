package dev.vigil.child.demo;

/** A {@link DemoHandler} that never looks at the shutdown request: never acks, never exits, keeps beating; other settings from the environment. */
public class IgnoreShutdownHandler extends DemoHandler {
    public IgnoreShutdownHandler() {
        super(DemoBehaviour.fromEnv(System.getenv()).withIgnoreShutdown(true));
    }
}
