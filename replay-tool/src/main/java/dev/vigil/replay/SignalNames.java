package dev.vigil.replay;

import jnr.constants.platform.Signal;

/** A signal number as a person reads it: {@code SIGTERM}, {@code SIGKILL}, or {@code signal 77} when unnamed. */
final class SignalNames {
    private SignalNames() {
    }

    static String name(int signal) {
        Signal s = Signal.valueOf(signal);
        return s != null && s.defined() && s.intValue() == signal ? s.name() : "signal " + signal;
    }
}
