package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every {@code $ bin/vigil-replay ...} example of README.md and docs/*.md is run (in process, as the launcher runs
 * it) and its output compared with the lines the doc prints under it, unless its arguments name a placeholder
 * ({@code DIR}, {@code FILE}): a line {@code ...} stands for any lines, a line ending in {@code " ..."} for any
 * line starting with what precedes it. {@code | head -N}, {@code | jq ARGS} (the real jq) and
 * {@code ; echo "exit $?"} are applied as a shell would. The orchestrator's DocumentedSnippetsTest covers the
 * code blocks; this covers the replay commands and what they print.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DocumentedCommandsTest {
    static final Path ROOT = Path.of(System.getProperty("vigil.root", ".")).toAbsolutePath().normalize();
    static final Pattern BLOCK = Pattern.compile("(?m)^```\\n(.*?)^```", Pattern.DOTALL);
    static final Pattern PLACEHOLDER = Pattern.compile("\\b(DIR|FILE)\\b");
    static final String PROMPT = "$ bin/vigil-replay ";

    record Example(Path file, int line, String command, List<String> expected) {
        @Override
        public String toString() {
            return ROOT.relativize(file) + ":" + line + ": " + command;
        }
    }

    static List<Example> examples() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Example> all = new ArrayList<>();
        for (Path f : files) {
            String text = Files.readString(f);
            Matcher m = BLOCK.matcher(text);
            while (m.find()) {
                int firstLine = (int) text.substring(0, m.start(1)).chars().filter(c -> c == '\n').count() + 1;
                String[] lines = m.group(1).split("\n", -1);
                for (int i = 0; i < lines.length; i++) {
                    if (!lines[i].startsWith(PROMPT)) {
                        continue;
                    }
                    List<String> expected = new ArrayList<>();
                    for (int j = i + 1; j < lines.length && !lines[j].startsWith("$ "); j++) {
                        expected.add(lines[j]);
                    }
                    while (!expected.isEmpty() && expected.get(expected.size() - 1).isEmpty()) {
                        expected.remove(expected.size() - 1);
                    }
                    all.add(new Example(f, firstLine + i, lines[i].substring(2), expected));
                }
            }
        }
        return all;
    }

    @Test
    void everyDocumentedReplayCommandOnACommittedJournalPrintsWhatTheDocShows() throws Exception {
        List<Example> all = examples();
        int ran = 0;
        for (Example e : all) {
            if (PLACEHOLDER.matcher(e.command()).find()) {
                continue;
            }
            check(e);
            ran++;
        }
        assertTrue(ran >= 6, "ran only " + ran + " of " + all.size() + " documented replay commands: the pattern broke");
    }

    private static void check(Example e) throws Exception {
        String command = e.command();
        boolean echoExit = command.endsWith("; echo \"exit $?\"");
        if (echoExit) {
            command = command.substring(0, command.length() - "; echo \"exit $?\"".length());
        }
        List<String> pipeline = stages(command);
        CliRun run = CliRun.of(words(pipeline.get(0).substring("bin/vigil-replay ".length())).toArray(String[]::new));
        assertEquals("", run.err(), () -> e + ": " + run);
        List<String> out = new ArrayList<>(Arrays.asList(run.out().split("\n")));
        for (int i = 1; i < pipeline.size(); i++) {
            List<String> stage = words(pipeline.get(i));
            if (stage.get(0).equals("head")) {
                int n = Integer.parseInt(stage.get(1).substring(1));
                out = new ArrayList<>(out.subList(0, Math.min(n, out.size())));
            } else if (stage.get(0).equals("jq")) {
                out = jq(e, stage, String.join("\n", out) + "\n");
            } else {
                fail(e + ": this test does not know '" + stage.get(0) + "' (teach it, or write the example without it)");
            }
        }
        if (echoExit) {
            out.add("exit " + run.exit());
        } else if (pipeline.size() == 1) {
            assertEquals(0, run.exit(), () -> e + ": " + run);
        }
        assertTrue(matches(e.expected(), 0, out, 0),
                () -> e + ": the doc shows\n" + String.join("\n", e.expected()) + "\n--- but it prints ---\n" + String.join("\n", run.out().split("\n", 40)));
    }

    /** The doc's lines against the output's: "..." any lines, a trailing " ..." any rest of the line. */
    static boolean matches(List<String> doc, int d, List<String> out, int o) {
        if (d == doc.size()) {
            return o == out.size();
        }
        String line = doc.get(d);
        if (line.equals("...")) {
            for (int skip = o; skip <= out.size(); skip++) {
                if (matches(doc, d + 1, out, skip)) {
                    return true;
                }
            }
            return false;
        }
        if (o == out.size()) {
            return false;
        }
        boolean same = line.endsWith(" ...") ? out.get(o).startsWith(line.substring(0, line.length() - 3)) : out.get(o).equals(line);
        return same && matches(doc, d + 1, out, o + 1);
    }

    private static List<String> jq(Example e, List<String> args, String input) throws Exception {
        List<String> command = new ArrayList<>(args);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException notThere) {
            throw new AssertionError(e + ": needs jq on PATH (apt-get install jq; .ci/run installs it)", notThere);
        }
        try (var in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        String result = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), e + ": jq did not finish");
        assertEquals(0, p.exitValue(), () -> e + ": jq: " + result);
        return result.isEmpty() ? new ArrayList<>() : new ArrayList<>(Arrays.asList(result.split("\n")));
    }

    /** The stages of a pipeline: split at {@code |} outside single quotes. */
    static List<String> stages(String command) {
        List<String> stages = new ArrayList<>();
        boolean quoted = false;
        int from = 0;
        for (int i = 0; i < command.length(); i++) {
            char c = command.charAt(i);
            if (c == '\'') {
                quoted = !quoted;
            } else if (c == '|' && !quoted) {
                stages.add(command.substring(from, i).strip());
                from = i + 1;
            }
        }
        stages.add(command.substring(from).strip());
        return stages;
    }

    /** Shell words: blanks split, single quotes keep, {@code #} starts a comment; paths are the checkout's. */
    static List<String> words(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder w = null;
        boolean quoted = false;
        for (char c : s.strip().toCharArray()) {
            if (c == '\'') {
                quoted = !quoted;
                w = w == null ? new StringBuilder() : w;
            } else if (!quoted && c == '#' && w == null) {
                break;
            } else if (!quoted && c == ' ') {
                if (w != null) {
                    words.add(w.toString());
                    w = null;
                }
            } else {
                w = w == null ? new StringBuilder() : w;
                w.append(c);
            }
        }
        if (w != null) {
            words.add(w.toString());
        }
        return words.stream().map(a -> a.startsWith("replay-tool/") ? ROOT.resolve(a).toString() : a).toList();
    }
}
