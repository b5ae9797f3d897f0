package dev.vigil.replay.source;

import java.nio.file.Path;
import java.util.Set;

import dev.vigil.journal.EventType;
import dev.vigil.journal.JournalOwner;
import dev.vigil.journal.JournalReader;

/**
 * Where a replay command's events come from: one journal's events, in journal order, each with its
 * journal index. A journal directory ({@link JournalDirectorySource}) or one host's events in a Kafka
 * topic (the fleet module) feed the same fold and give the same output.
 */
public interface EventSource {
    /** What is read, for messages: {@code journal dir=...} or {@code kafka=... topic=... host=...}. */
    String describe();

    /** Time of the first event (the origin of relative times), 0 when there is none. */
    long firstEventTime();

    /**
     * Reads every event from the start in journal order, decoding only what {@code filter} wants,
     * until the end or until the sink returns false. Returns the number of events passed over.
     */
    long read(JournalReader.TypeFilter filter, JournalReader.EventSink sink);

    /** Like {@link #read(JournalReader.TypeFilter, JournalReader.EventSink)}; null kinds = every kind. */
    default long read(Set<EventType> kinds, JournalReader.EventSink sink) {
        return read(kinds == null ? t -> true : kinds::contains, sink);
    }

    /** The journal directory behind this source (its close index speeds some commands up), or null. */
    default Path journalDir() {
        return null;
    }

    /**
     * The pid of the orchestrator still writing this journal ({@link JournalOwner#livePid}), or -1 when none is
     * (or it cannot be known, as for a shipped journal). Asked before the read: a close this pid started that the
     * journal does not complete is in progress, not cut off.
     */
    default int liveOrchestratorPid() {
        Path dir = journalDir();
        return dir == null ? -1 : JournalOwner.livePid(dir);
    }
}
