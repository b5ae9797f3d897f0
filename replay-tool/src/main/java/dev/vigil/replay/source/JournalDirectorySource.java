package dev.vigil.replay.source;

import java.nio.file.Path;

import dev.vigil.journal.JournalReader;
import dev.vigil.replay.internal.JournalScan;

/** A journal directory on this host, read through {@link JournalScan}. */
public record JournalDirectorySource(Path dir) implements EventSource {
    @Override
    public String describe() {
        return "journal dir=" + dir;
    }

    @Override
    public long firstEventTime() {
        return JournalScan.firstEventTime(dir);
    }

    @Override
    public long read(JournalReader.TypeFilter filter, JournalReader.EventSink sink) {
        return JournalScan.read(dir, -1, filter, sink);
    }

    @Override
    public Path journalDir() {
        return dir;
    }
}
