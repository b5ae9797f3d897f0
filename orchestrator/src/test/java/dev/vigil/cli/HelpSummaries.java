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

    /**
     * The stub lines inside the description of a command's {@code --help} (the lines after the usage, up to the first
     * indented one): a description given as lines wider than the help, each wrapped on its own, leaves a short line
     * after every one of them ("from, to,"). A description picocli wrapped as one paragraph has none (every line but
     * its last at least half the width). Empty when nothing is wrong; one entry when no description is found.
     */
    public static List<String> descriptionStubs(String help) {
        List<String> lines = help.lines().toList();
        int first = 0;
        while (first < lines.size() && !lines.get(first).startsWith("Usage:")) {
            first++;
        }
        first++;
        while (first < lines.size() && lines.get(first).startsWith(" ")) {
            first++;
        }
        int last = first;
        while (last < lines.size() && !lines.get(last).isBlank() && !lines.get(last).startsWith(" ")) {
            last++;
        }
        if (last == first) {
            return List.of("no description found in:\n" + help);
        }
        List<String> out = new ArrayList<>();
        for (String line : lines.subList(first, last - 1)) {
            if (line.length() < WIDTH / 2) {
                out.add("a stub line '" + line + "' inside the description");
            }
        }
        return out;
    }
}
