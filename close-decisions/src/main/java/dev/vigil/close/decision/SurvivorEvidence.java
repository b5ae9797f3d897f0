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
 */
public record SurvivorEvidence(String group, int index, int pid, String kind, MailboxWords words,
        long heartbeatAgeNanos, long windowNanos, ProcSnapshot proc, List<String> lastEvents) {
    public SurvivorEvidence {
        lastEvents = List.copyOf(lastEvents);
    }
}
