package dev.vigil.close.decision;

import java.util.List;

/**
 * Everything known about one survivor when it is diagnosed.
 *
 * @param words             mailbox words, null for a plain executable
 * @param heartbeatAgeNanos time since the heartbeat word last changed (at least; measured from the
 *                          broadcast when it never changed during the close), -1 without a mailbox
 * @param windowNanos       the no-progress window the close ran with
 * @param proc              /proc state, wchan, stack
 * @param lastEvents        short descriptions of the child's last journal events, oldest first
 * @param handler           the command the parent placed in its mailbox and that has not completed, or null
 */
public record SurvivorEvidence(String group, int index, int pid, String kind, MailboxWords words,
        long heartbeatAgeNanos, long windowNanos, ProcSnapshot proc, List<String> lastEvents, OpenCommand handler) {
    public SurvivorEvidence {
        lastEvents = List.copyOf(lastEvents);
    }

    public SurvivorEvidence(String group, int index, int pid, String kind, MailboxWords words, long heartbeatAgeNanos,
            long windowNanos, ProcSnapshot proc, List<String> lastEvents) {
        this(group, index, pid, kind, words, heartbeatAgeNanos, windowNanos, proc, lastEvents, null);
    }

    /**
     * A command issued to the child and not completed when it was diagnosed.
     *
     * @param kind         "CONTROL" or "TASK"
     * @param opcode       the handler's opcode
     * @param commandId    the command's id in the journal
     * @param runningNanos time from its issue to the diagnosis
     */
    public record OpenCommand(String kind, int opcode, long commandId, long runningNanos) {
    }
}
