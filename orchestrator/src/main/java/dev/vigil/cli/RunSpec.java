package dev.vigil.cli;

import java.util.List;
import java.util.Map;

/**
 * A validated pool-runner spec ({@code vigil run SPEC}): what to start, how to drive it, how to close
 * it, how many times. Built only by {@link SpecReader}, which reports every mistake at once.
 */
public record RunSpec(String journalDir, String protocol, int cycles, Close close, List<PoolEntry> pools,
        ChildLogs childLogs) {

    /** A spec with the default child logs. */
    public RunSpec(String journalDir, String protocol, int cycles, Close close, List<PoolEntry> pools) {
        this(journalDir, protocol, cycles, close, pools, ChildLogs.DEFAULTS);
    }

    /** This spec with another journal directory (bin/vigil --journal). */
    public RunSpec withJournalDir(String dir) {
        return new RunSpec(dir, protocol, cycles, close, pools, childLogs);
    }

    /**
     * Each child's stdout and stderr go to its own files under {@code <journalDir>-logs/<pool>/}, rotated at
     * {@code maxBytes} keeping {@code keep} old files (dev.vigil.spawn.ChildLog; docs/SPAWNING.md "Children's output").
     */
    public record ChildLogs(long maxBytes, int keep) {
        public static final ChildLogs DEFAULTS = new ChildLogs(dev.vigil.spawn.ChildLog.DEFAULT_MAX_BYTES,
                dev.vigil.spawn.ChildLog.DEFAULT_KEEP);
    }

    /** Every child the spec starts at once (all pools, all groups): what the mailbox map must hold. */
    public int totalChildren() {
        return pools.stream().flatMap(p -> p.groups().stream()).mapToInt(Group::children).sum();
    }

    /**
     * One pool: its id, its groups, the control workload driven between start and close, and what it does about a
     * child that exits during the run.
     */
    public record PoolEntry(String id, List<Group> groups, Workload workload, dev.vigil.pool.ExitPolicy onChildExit,
            Start start) {
        /** A pool whose exit policy ({@code keep}) and start settings are the defaults. */
        public PoolEntry(String id, List<Group> groups, Workload workload) {
            this(id, groups, workload, dev.vigil.pool.ExitPolicy.keep(), Start.DEFAULTS);
        }
    }

    /**
     * A pool's start: how long each child has from its own spawn to be ready ({@code Pool.Builder.startTimeout}), and how
     * many java and python children boot at once, 0 for no bound ({@code Pool.Builder.bootingAtOnce}).
     */
    public record Start(long timeoutMs, int bootingAtOnce) {
        public static final Start DEFAULTS = new Start(dev.vigil.pool.Pool.DEFAULT_START_TIMEOUT.toMillis(),
                dev.vigil.pool.Pool.BOOTING_AT_ONCE);
    }

    /**
     * A group of identical children. {@code kind}: java (the Java child runtime with {@code handler}),
     * python (the Python child runtime with {@code handler}), c (a C program linked with the C runtime,
     * default the demo child), mailbox-exec (any executable that speaks the mailbox protocol), exec (a
     * plain executable, signals only). {@code classPath} (java, python) is where the handler lives,
     * {@code jvmOptions} (java) go to the child JVM.
     */
    public record Group(String name, String kind, List<String> command, int children, String handler,
            Map<String, String> env, String stopSignal, List<String> classPath, List<String> jvmOptions) {
        public Group {
            command = List.copyOf(command);
            env = Map.copyOf(env);
            classPath = List.copyOf(classPath);
            jvmOptions = List.copyOf(jvmOptions);
        }

        /** A group without class path or JVM options. */
        public Group(String name, String kind, List<String> command, int children, String handler, Map<String, String> env,
                String stopSignal) {
            this(name, kind, command, children, handler, env, stopSignal, List.of(), List.of());
        }
    }

    /**
     * Control commands sent to every mailbox child per cycle, each waited for at most timeoutMs;
     * with inFlightAtClose one more is left running when the close begins (the moment of the
     * lost-shutdown race).
     */
    public record Workload(int controls, long controlTimeoutMs, boolean inFlightAtClose) {
    }

    /** Close settings: the no-progress window, an optional hard cap (0 = none), escalation, parallelism. */
    public record Close(long windowMs, long hardCapMs, long fixedBudgetMs, String escalation, long graceMs,
            int parallelCloses) {
    }
}
