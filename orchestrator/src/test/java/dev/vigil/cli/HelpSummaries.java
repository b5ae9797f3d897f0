package dev.vigil.cli;

import java.util.ArrayList;
import java.util.List;

/** Checks the command list of a {@code --help} text (bin/vigil's, vigil-replay's). */
public final class HelpSummaries {
    /** picocli's usage width: the command list is wrapped to it. */
    public static final int WIDTH = 80;

    private HelpSummaries() {
    }

    /**
     * What is wrong with the summaries under "Commands:" in {@code help}: each must be one complete short sentence, on
     * its command's line (a summary picocli wrapped runs onto the next line), ending with a full stop. Empty when
     * nothing is.
     */
    public static List<String> problems(String help) {
        List<String> lines = help.lines().toList();
        int at = lines.indexOf("Commands:");
        if (at < 0) {
            return List.of("no Commands: section in:\n" + help);
        }
        List<String> out = new ArrayList<>();
        for (int i = at + 1; i < lines.size() && !lines.get(i).isBlank(); i++) {
            String line = lines.get(i);
            if (!line.matches(" {2}\\S+ +\\S.*")) {
                out.add("the summary before runs onto a second line: '" + line.strip() + "'");
            } else if (!line.endsWith(".")) {
                out.add("a summary does not end with a full stop: '" + line.strip() + "'");
            } else if (line.length() > WIDTH) {
                out.add("a summary is wider than " + WIDTH + ": '" + line + "'");
            }
        }
        return out;
    }
}
