package dev.vigil.replay;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code timeline DIR CLOSE -o FILE}: draws one close as SVG, or as an HTML page around the SVG. */
@Command(name = "timeline", mixinStandardHelpOptions = true,
        description = {"Draw one close: a lane per child with its state-word intervals coloured by state, the",
            "broadcast, ack, diagnosis, escalation and reap marks; survivors highlighted. The output format follows",
            "the file name: .svg, or .html (the SVG with the verdict and a table of children)."})
public final class TimelineCommand implements Callable<Integer> {
    @ParentCommand
    ReplayCli cli;

    @Parameters(index = "0", paramLabel = "DIR", description = "journal directory")
    Path dir;

    @Parameters(index = "1", paramLabel = "CLOSE", description = "close id (see: vigil-replay closes)")
    long closeId;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true, description = "FILE.svg or FILE.html")
    Path output;

    @Override
    public Integer call() {
        return run(dir, closeId, output, cli.out);
    }

    public static int run(Path dir, long closeId, Path output, PrintStream out) {
        String name = output.getFileName() == null ? "" : output.getFileName().toString().toLowerCase(Locale.ROOT);
        boolean html = name.endsWith(".html") || name.endsWith(".htm");
        if (!html && !name.endsWith(".svg")) {
            throw new ReplayInputException("output file=" + output + " must end in .svg or .html");
        }
        CloseLookup.Result r = CloseLookup.rebuild(dir, closeId);
        String doc = html ? TimelineSvg.renderHtml(r.close()) : TimelineSvg.render(r.close());
        try {
            Files.writeString(output, doc, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ReplayInputException("cannot write output file=" + output + ": " + e);
        }
        out.println("wrote " + output + " (" + r.close().children().size() + " lanes, close " + closeId + " "
                + r.close().outcome().outcome() + (r.close().isComplete() ? "" : ", INCOMPLETE") + ")");
        if (r.damage() != null) {
            throw r.damage();
        }
        return 0;
    }
}
