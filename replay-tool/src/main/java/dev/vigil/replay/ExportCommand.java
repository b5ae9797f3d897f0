package dev.vigil.replay;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JsonEvents;
import dev.vigil.journal.MailboxTransition;
import dev.vigil.journal.MailboxTransitionBatch;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/** {@code export DIR}: every event as one JSON object per line, for jq. */
public final class ExportCommand implements Callable<Integer> {
    ReplayCli cli;
    Path dir;
    SourceOptions source;

    /** The command line model of {@code export}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        ExportCommand c = new ExportCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "export", "Write every event as one JSON line (for jq).",
                "Every event as JSON lines (for jq): the journal's JSON form (event kind in \"event\")",
                "with the journal (Chronicle) index of the event added as \"journalIndex\" (\"index\" is a child's index in its group).",
                "A MailboxTransitionBatch is one MailboxTransition line per transition it packs, with its place in",
                "the batch as \"position\" (0 first): journalIndex and position are what audit cites.");
        CommandModel.journalDir(spec, () -> c.dir, v -> c.dir = v);
        c.source = SourceOptions.addTo(spec);
        return spec;
    }

    @Override
    public Integer call() {
        return source.run(dir, true, cli.out, ExportCommand::run);
    }

    public static int run(Path dir, PrintStream out) {
        return run(new JournalDirectorySource(dir), out);
    }

    /** How many lines go out between two checks that the output still takes them (a closed pipe ends the export). */
    private static final int CHECK_EVERY = 4096;

    public static int run(EventSource source, PrintStream out) {
        try (JsonGenerator gen = JsonEvents.mapper().getFactory().createGenerator((java.io.OutputStream) out)) {
            gen.setRootValueSeparator(null);
            long[] lines = {0};
            source.read(t -> true, (i, e) -> {
                try {
                    long before = lines[0];
                    lines[0] += write(gen, i, e);
                    if (lines[0] / CHECK_EVERY != before / CHECK_EVERY) {
                        gen.flush();
                        return !out.checkError();
                    }
                    return true;
                } catch (IOException io) {
                    throw new UncheckedIOException(io);
                }
            });
            gen.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return 0;
    }

    /**
     * Writes the lines of one event, each ended by a newline, and returns how many: the journal's JSON form with the
     * journal index first, as "journalIndex"; a {@link MailboxTransitionBatch} as one MailboxTransition line per packed
     * transition, its position in the batch after the index, as "position" (what the audit cites).
     */
    static int write(JsonGenerator gen, long journalIndex, JournalEvent e) throws IOException {
        if (!(e instanceof MailboxTransitionBatch batch)) {
            JsonEvents.write(gen, JOURNAL_INDEX, journalIndex, e);
            gen.writeRaw('\n');
            return 1;
        }
        List<MailboxTransition> packed = batch.transitions();
        for (int position = 0; position < packed.size(); position++) {
            JsonEvents.write(gen, JOURNAL_INDEX, journalIndex, POSITION, position, packed.get(position));
            gen.writeRaw('\n');
        }
        return packed.size();
    }

    /** {@link #write(JsonGenerator, long, JournalEvent)} into text: the event's lines, each ended by a newline. */
    static String lines(long journalIndex, JournalEvent e) {
        java.io.StringWriter text = new java.io.StringWriter(256);
        try (JsonGenerator gen = JsonEvents.mapper().getFactory().createGenerator(text)) {
            gen.setRootValueSeparator(null);
            write(gen, journalIndex, e);
        } catch (IOException io) {
            throw new UncheckedIOException(io);
        }
        return text.toString();
    }

    /** The fields export adds; no event has a field of these names ({@code JsonEvents} refuses one that does). */
    static final String JOURNAL_INDEX = "journalIndex";
    static final String POSITION = "position";
}
