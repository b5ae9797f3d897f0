package dev.vigil.journal;

/**
 * A survivor's own (user-space) stacks, captured before the close's first escalation signal: {@code tool} names
 * how ({@code eu-stack}, {@code gdb}, {@code jcmd Thread.print}, {@code faulthandler}, or {@code none} when no tool
 * was present), {@code summary} is one line (the tool, the thread count, the top frames of the thread that matters,
 * or why nothing was captured), {@code stacks} the tool's output (cut at 64 KiB).
 */
public record SurvivorStacks(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String group, int index, int pid, String tool, long durationNanos, String summary, String stacks)
        implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.SURVIVOR_STACKS;
    }
}
