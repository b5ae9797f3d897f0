package dev.vigil.cli;

import java.io.PrintStream;
import java.util.List;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.pool.ChildSpec;

/** What a run may vary per cycle and per child beyond its spec (the demo draws each child's teardown time). */
@FunctionalInterface
public interface RunHooks {
    RunHooks NONE = (cycle, pool, group, index, spec) -> spec;

    /** The spec to start child {@code index} of {@code group} of {@code pool} with in {@code cycle} (1-based). */
    ChildSpec childSpec(int cycle, String pool, String group, int index, ChildSpec spec);

    /**
     * The control left running on this child when the close begins, or null for none. Default: an
     * echo when the pool's workload has inFlightAtClose.
     */
    default InFlight inFlight(int cycle, String pool, String group, int index, RunSpec.Workload workload) {
        return workload.inFlightAtClose() ? new InFlight(DemoHandler.OP_ECHO, -1) : null;
    }

    /** Called once the closes of {@code cycle} completed, with their reports; may print lines on {@code out}. */
    default void cycleClosed(int cycle, List<CloseReport> reports, PrintStream out) {
    }

    /** A control command: opcode and argument. */
    record InFlight(int opcode, long argument) {
    }
}
