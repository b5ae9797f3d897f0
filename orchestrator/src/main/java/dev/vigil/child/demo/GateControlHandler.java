package dev.vigil.child.demo;

/** A {@link DemoHandler} that blocks every command until the mailbox gate word is set (the race's wedged handler); other settings from the environment. */
public class GateControlHandler extends DemoHandler {
    public GateControlHandler() {
        super(DemoBehaviour.fromEnv(System.getenv()).withGate(true));
    }
}
