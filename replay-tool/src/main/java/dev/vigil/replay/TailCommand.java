package dev.vigil.replay;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;

import dev.vigil.journal.JournalReader;

import picocli.CommandLine.Model.CommandSpec;

/** {@code tail DIR}: follows a live journal, one readable line per event. */
public final class TailCommand implements Callable<Integer> {
    ReplayCli cli;
    Path dir;
    boolean fromStart;
    Double idleExitSeconds;
    Long limit;
    boolean json;

    /** The command line model of {@code tail}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        TailCommand c = new TailCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "tail", "Follow a live journal, one readable line per event.",
                "Follow a live journal and print one readable line per event as it is appended",
                "(time is CLOCK_MONOTONIC seconds). Runs until interrupted unless --idle-exit or --limit says otherwise.");
        spec.addPositional(CommandModel.parameter(Path.class, "0", "1", "DIR", () -> c.dir, v -> c.dir = v)
                .description("journal directory").build());
        CommandModel.flag(spec, "--from-start", "print the events already in the journal first (default: only new ones)",
                () -> c.fromStart, v -> c.fromStart = v);
        spec.addOption(CommandModel.option(Double.class, "SECONDS", () -> c.idleExitSeconds, v -> c.idleExitSeconds = v,
                "--idle-exit").description("stop after this many seconds without a new event (default: never)").build());
        spec.addOption(CommandModel.option(Long.class, "N", () -> c.limit, v -> c.limit = v, "--limit")
                .description("stop after N events (default: no limit)").build());
        CommandModel.flag(spec, "--json", "one JSON object per event (the export form) instead of readable lines",
                () -> c.json, v -> c.json = v);
        return spec;
    }

    @Override
    public Integer call() {
        if (limit != null && limit < 1) {
            throw new ReplayInputException("--limit must be at least 1 (events), not " + limit);
        }
        if (idleExitSeconds != null && !(idleExitSeconds >= 0 && idleExitSeconds < Double.POSITIVE_INFINITY)) {
            throw new ReplayInputException("--idle-exit must be a number of seconds >= 0, not " + idleExitSeconds);
        }
        return run(dir, fromStart, idleExitSeconds == null ? -1 : idleExitSeconds, limit == null ? -1 : limit, json,
                cli.out);
    }

    public static int run(Path dir, boolean fromStart, double idleExitSeconds, long limit, PrintStream out) {
        return run(dir, fromStart, idleExitSeconds, limit, false, out);
    }

    public static int run(Path dir, boolean fromStart, double idleExitSeconds, long limit, boolean json,
            PrintStream out) {
        try (JournalReader reader = JournalReader.open(dir)) {
            reader.fromStart();
            if (!fromStart) {
                reader.read(type -> false, (i, e) -> true);
            }
            long idleNanos = idleExitSeconds < 0 ? Long.MAX_VALUE : (long) (idleExitSeconds * 1e9);
            long[] lastEventAt = {System.nanoTime()};
            long[] printed = {0};
            reader.follow((i, e) -> {
                if (json) {
                    out.print(ExportCommand.lines(i, e));
                } else {
                    EventLines.format(e).forEach(out::println);
                }
                out.flush(); // a live view: each event as it comes
                lastEventAt[0] = System.nanoTime();
                return ++printed[0] != limit && !out.checkError();
            }, () -> {
                out.flush();
                return System.nanoTime() - lastEventAt[0] < idleNanos && !Thread.currentThread().isInterrupted();
            });
        }
        return 0;
    }
}
