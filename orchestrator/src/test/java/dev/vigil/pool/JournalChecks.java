package dev.vigil.pool;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildReaped;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JournalReader;
import dev.vigil.journal.MailboxReleased;

/** Invariants checked over a whole journal after a test. */
public final class JournalChecks {
    private JournalChecks() {
    }

    public static List<JournalEvent> readAll(Path dir) {
        List<JournalEvent> events = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().readAll((i, e) -> events.add(e));
        }
        return events;
    }

    /**
     * Every MailboxReleased comes after a ChildReaped (in a close) or a ChildExited (during the run, before a restart)
     * of the same child; returns the violations.
     */
    public static List<String> mailboxesReleasedOnlyAfterReap(List<JournalEvent> events) {
        Set<String> reaped = new HashSet<>();
        List<String> violations = new ArrayList<>();
        for (JournalEvent e : events) {
            if (e instanceof ChildReaped r) {
                reaped.add(r.poolId() + "/" + r.group() + "/" + r.index());
            } else if (e instanceof ChildExited x) {
                reaped.add(x.poolId() + "/" + x.group() + "/" + x.index());
            } else if (e instanceof MailboxReleased m) {
                String key = m.poolId() + "/" + m.group() + "/" + m.index();
                if (!reaped.contains(key)) {
                    violations.add("mailbox released before its child was reaped: " + m);
                }
            }
        }
        return violations;
    }
}
