package dev.vigil.cli;

import dev.vigil.pool.ChildSpec;

/** What a run may vary per cycle beyond its spec (the demo draws fresh teardown delays each cycle). */
@FunctionalInterface
public interface RunHooks {
    RunHooks NONE = (cycle, pool, group, spec) -> spec;

    /** The spec to start {@code group} of {@code pool} with in {@code cycle} (1-based). */
    ChildSpec childSpec(int cycle, String pool, String group, ChildSpec spec);
}
