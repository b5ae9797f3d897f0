package dev.vigil.replay;

import dev.vigil.journal.JournalException;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/** {@code timeline DIR CLOSE -o FILE}: draws one close as SVG, or as an HTML page around the SVG. */
public final class TimelineCommand implements Callable<Integer> {
    ReplayCli cli;
    List<String> args;
    SourceOptions source;
    Path output;

    /** The command line model of {@code timeline}, bound to a new instance that runs for {@code cli}. */
    static CommandSpec model(ReplayCli cli) {
        TimelineCommand c = new TimelineCommand();
        c.cli = cli;
        CommandSpec spec = CommandModel.command(c, "timeline", "Draw one close as SVG or HTML, a lane per child.",
                "Draw one close: a lane per child with its state-word intervals coloured by state, the",
                "broadcast, ack, diagnosis, escalation and reap marks; survivors highlighted. The output format follows",
                "the file name: .svg, or .html (the SVG with the verdict and a table of children).");
        CommandModel.dirAndClose(spec, () -> c.args, v -> c.args = v);
        c.source = SourceOptions.addTo(spec);
        spec.addOption(CommandModel.option(Path.class, "FILE", () -> c.output, v -> c.output = v, "-o", "--output")
                .required(true).description("FILE.svg or FILE.html").build());
        return spec;
    }

    @Override
    public Integer call() {
        CloseLookup.Target t = CloseLookup.Target.of(args, source);
        return source.runOnHolder(t.dir(), cli.out, s -> CloseLookup.holds(s, t.closeId()), "close id=" + t.closeId(),
                (s, out) -> run(s, t.closeId(), output, out));
    }

    public static int run(Path dir, long closeId, Path output, PrintStream out) {
        return run(new JournalDirectorySource(dir), closeId, output, out);
    }

    /** Why {@code output} could not be written, in the file system's words, never an exception class name. */
    static String reason(Path output, IOException e) {
        Path parent = output.toAbsolutePath().getParent();
        if (e instanceof java.nio.file.NoSuchFileException && parent != null && !Files.isDirectory(parent)) {
            return "its directory does not exist";
        }
        return JournalException.plain(e);
    }

    public static int run(EventSource source, long closeId, Path output, PrintStream out) {
        String name = output.getFileName() == null ? "" : output.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean html = name.endsWith(".html") || name.endsWith(".htm");
        if (!html && !name.endsWith(".svg")) {
            throw new ReplayInputException("output file=" + output + " must end in .svg or .html");
        }
        CloseLookup.Result r = CloseLookup.rebuild(source, closeId, null);
        String doc = html ? TimelineSvg.renderHtml(r.close()) : TimelineSvg.render(r.close());
        try {
            Files.writeString(output, doc, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ReplayInputException("cannot write output file=" + output + " (" + reason(output, e) + ")");
        }
        out.println("wrote " + output + " (" + r.close().children().size() + " lanes, close " + closeId + " "
                + r.close().outcome().outcome() + (r.close().isComplete() ? "" : ", INCOMPLETE") + ")");
        if (r.damage() != null) {
            throw r.damage();
        }
        return 0;
    }
}
