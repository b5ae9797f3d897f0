package dev.vigil.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes a golden journal: every event kind, three times with different values, the JSON form
 * of each event beside it ({@code events.jsonl}) and the transitions its packed batches stand for
 * ({@code transitions.jsonl}, one {@link MailboxTransition} a line). Run once by the build that introduced a layout,
 * the result is committed under {@code src/test/resources/golden/} and read by every later build
 * ({@code GoldenJournalTest}).
 */
public final class GoldenJournalWriter {
    private GoldenJournalWriter() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        List<String> json = new ArrayList<>();
        List<String> transitions = new ArrayList<>();
        try (JournalWriter w = JournalWriter.open(dir.resolve("journal"))) {
            for (long seed = 1; seed <= 3; seed++) {
                for (JournalEvent e : SampleEvents.oneOfEach(seed)) {
                    w.append(e);
                    json.add(JsonEvents.toJson(e));
                    MailboxTransitionBatch.expand(e).forEach(t -> transitions.add(JsonEvents.toJson(t)));
                }
            }
            w.flush();
        }
        Files.write(dir.resolve("events.jsonl"), json);
        Files.write(dir.resolve("transitions.jsonl"), transitions);
    }
}
