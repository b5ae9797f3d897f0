package dev.vigil.journal;

/**
 * An orchestrator left ({@code Orchestrator.leave}, {@code bin/vigil run} under escalation leak) while a pool of it
 * still held processes: its survivors and strays stay alive with their mailboxes in {@code container}. closeId is the
 * pool's last close; {@code processes} lists each as {@code pid=.. ppid=.. command=..} separated by "; ";
 * {@code endWith} is the command that ends them ({@code vigil reap JOURNAL_DIR}).
 */
public record PoolKept(long timeNanos, int orchestratorPid, String poolId, long closeId,
        String mode, String container, int processCount, String processes, String endWith) implements JournalEvent {
    @Override
    public EventType type() {
        return EventType.POOL_KEPT;
    }
}
