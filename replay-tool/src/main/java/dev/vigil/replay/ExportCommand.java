package dev.vigil.replay;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.core.JsonGenerator;

import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.JsonEvents;
import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code export DIR}: every event as one JSON object per line, for jq. */
@Command(name = "export", mixinStandardHelpOptions = true,
        description = {"Every event as JSON lines (for jq): the journal's JSON form (event kind in \"event\")",
            "with the journal (Chronicle) index of the event added as \"journalIndex\" (\"index\" is a child's index in its group)."})
public final class ExportCommand implements Callable<Integer> {
    @ParentCommand
    ReplayCli cli;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", description = "journal directory (or --kafka)")
    Path dir;

    @Mixin
    SourceOptions source;

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
                    JsonEvents.write(gen, JOURNAL_INDEX, i, e);
                    gen.writeRaw('\n');
                    if (++lines[0] % CHECK_EVERY == 0) {
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

    /** The journal's JSON form of one event with its journal index first, as "journalIndex". */
    static String line(long journalIndex, JournalEvent e) {
        return JsonEvents.toJson(JOURNAL_INDEX, journalIndex, e);
    }

    /** The field export adds; no event has a field of this name ({@code JsonEvents} refuses one that does). */
    static final String JOURNAL_INDEX = "journalIndex";
}
