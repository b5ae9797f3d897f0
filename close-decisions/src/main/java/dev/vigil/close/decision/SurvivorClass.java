package dev.vigil.close.decision;

/**
 * Why a child (or what it left behind) failed a close: the one list of causes, the same live (CloseReport,
 * SurvivorDiagnosed) and in the replay. {@link SurvivorDiagnosis#classify} tries the first eight in this order, first
 * match wins; the last four are not read from one child's words: {@link #EXIT_STATUS_LOST} from a reap that found the
 * child gone, {@link #DESCENDANTS_LEFT} from the close's
 * container scan (StrayFound), {@link #CONTAINMENT_ESCAPED} from its check of the children's cgroups
 * (ContainmentEscaped), {@link #ORCHESTRATOR_DIED} from the next orchestrator's recovery
 * (CloseEndedByOrchestratorDeath). Each has a one-line cause and a next step; {@link SurvivorDiagnosis#nextStep}
 * makes the step concrete from the evidence (which handler, for how long, which call).
 */
public enum SurvivorClass {
    /** /proc state T: stopped or traced; it cannot run its loop at all. */
    STOPPED("stopped (SIGSTOP, a job-control stop or a tracer): it cannot run its loop",
            "find who stopped it (ps -o pid,stat,ppid; a debugger or strace attached?), send SIGCONT, "
                    + "or close with term-then-kill (SIGKILL ends a stopped process)"),
    /**
     * Past INIT_READY, the child maps no part of its mailbox file any more (/proc/PID/maps): it unmapped it, or exec'd
     * another program (an exec drops every mapping; {@code exe=} of the evidence names what runs now).
     */
    DETACHED("detached from its mailbox: the child no longer maps its mailbox file (it unmapped it, or exec'd another "
            + "program), so it cannot see the shutdown word",
            "keep the mailbox mapped until the child exits; a program exec'd in its place must attach again (it inherits "
                    + "the VIGIL_* variables) or exit on its own; term-then-kill ends it"),
    /**
     * Its state word holds a state or writer no protocol writer writes ({@code UNKNOWN(n)}): the child (or whatever else
     * maps the file) wrote over its mailbox words, so none of them (shutdown, ack, heartbeat) can be trusted.
     */
    GARBLED("its mailbox words were written over: the state word holds a state or writer no protocol writer writes, so "
            + "its shutdown, ack and heartbeat words cannot be trusted",
            "find the write that overran the mailbox in the child (a stray pointer, a wrong offset or length, a second "
                    + "mapping of the file); term-then-kill ends it"),
    /** The shutdown request is not visible in its mailbox (legacy: the state word was overwritten; sticky: a bug of ours). */
    NOT_DELIVERED("shutdown never delivered: the request is not in its mailbox (legacy mode: a lost update, the child's "
            + "own state-word write erased SHUTDOWN)",
            "run the pool with protocol sticky (a shutdown word only the closer writes); in sticky mode this is a "
                    + "Vigil bug: report the journal"),
    /** Delivered, never acknowledged, and the child is inside a handler (state *_REQUEST / TASK_READY) that does not poll. */
    STUCK_IN_HANDLER("shutdown delivered but not observed: the child is inside a handler that neither returns nor "
            + "polls cancellation",
            "poll cancellation (or beat) inside the handler, or raise the window above the handler's longest run"),
    /** Delivered, never acknowledged, the child idle in its loop (or a plain executable that outlived its stop signal). */
    NOT_OBSERVED("shutdown delivered but ignored: the child is idle in its loop (not in a handler) and never "
            + "acknowledged it",
            "check that its runtime reads the shutdown word (a child built on an old runtime, or one that masks it); "
                    + "for a plain executable, that it exits on its stop signal"),
    /** Acknowledged, but no heartbeat for a whole window, or /proc state D. */
    WEDGED("acknowledged shutdown, then stopped making progress (no heartbeat for a whole window, or blocked in the kernel)",
            "read its stacks (journaled before any kill): fix the call it blocks in, or let term-then-kill end it"),
    /** Acknowledged and still beating: slow, not stuck. */
    FINALIZING("acknowledged shutdown and still beating: slow clean-up, not stuck",
            "its beats are progress, so no window runs out on it: shorten the clean-up (one that beats forever holds a"
                    + " close without a hard cap for good), or raise the hard cap (or the fixed budget) that ended it"),
    /** A process of the pool's container outlived its parent, a direct child (a daemon, a double fork). */
    DESCENDANTS_LEFT("descendants left behind: a process forked by a child outlived it in the pool's container",
            "make the child wait for (or kill) what it forks before exiting, or close with term-then-kill so the "
                    + "container is killed"),
    /** A direct child had left the pool's cgroup (it wrote its pid into another one) when the close began. */
    CONTAINMENT_ESCAPED("escaped containment: the child moved itself into another cgroup, out of reach of the pool's "
            + "cgroup.kill; the close killed it and what it found below it",
            "do not let children write cgroup.procs (run them as a user without write access to the cgroup tree); "
                    + "look in the cgroup the report names for what it forked that left its parentage"),
    /** Its exit status was taken by someone else in the orchestrator's process: whether it still runs is unknown. */
    EXIT_STATUS_LOST("exit status lost: something else in the orchestrator's process reaped the child (a waitpid(-1) or "
            + "an ignored SIGCHLD), so the close cannot know how it ended, and signals no pid that may name another "
            + "process now",
            "find what reaps children in the orchestrator's JVM (a library calling wait() or waitpid(-1), a SIGCHLD set "
                    + "to SIG_IGN) and remove it; this is a bug outside the child"),
    /** The orchestrator died during the close; its children were ended by the next one's recovery (or its guardian). */
    ORCHESTRATOR_DIED("the orchestrator died during the close: nobody reaped or reported its children",
            "find why the orchestrator died (its guardian record, dmesg for the OOM killer); the children were "
                    + "ended by the recovery, not by the close");

    private final String cause;
    private final String nextStep;

    SurvivorClass(String cause, String nextStep) {
        this.cause = cause;
        this.nextStep = nextStep;
    }

    /** The cause in one line, for a person. */
    public String cause() {
        return cause;
    }

    /** What to do next, in general terms; {@link SurvivorDiagnosis#nextStep} makes it concrete from the evidence. */
    public String nextStep() {
        return nextStep;
    }

    /** The class of {@code name}, or null for a name this build does not know (a newer journal). */
    public static SurvivorClass named(String name) {
        if (name == null) {
            return null;
        }
        for (SurvivorClass c : values()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }
}
