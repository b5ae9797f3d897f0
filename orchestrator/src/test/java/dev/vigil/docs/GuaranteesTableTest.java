package dev.vigil.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * docs/GUARANTEES.md names, per guarantee, the tests that prove it and the broken variant they show failing: every
 * {@code Class#method} it names is a test method of this repository, tagged slow exactly where the table says
 * "(slow)" (the others run in the default {@code mvn -B verify}, as the table promises).
 */
class GuaranteesTableTest {
    private static final Path DOC = DocumentedSnippetsTest.ROOT.resolve("docs/GUARANTEES.md");
    private static final Pattern REFERENCE = Pattern.compile("`([A-Z]\\w*)#(\\w+)`( \\(slow)?");

    @Test
    void everyTestTheTableNamesExistsAndRunsWhereTheTableSays() throws IOException {
        String doc = Files.readString(DOC);
        Map<String, Path> sources = testSources();
        List<String> wrong = new ArrayList<>();
        int references = 0;
        Matcher m = REFERENCE.matcher(doc);
        while (m.find()) {
            references++;
            String name = m.group(1) + "#" + m.group(2);
            Path file = sources.get(m.group(1));
            if (file == null) {
                wrong.add(name + ": no test class " + m.group(1) + ".java in any module");
                continue;
            }
            Boolean slow = slowTag(Files.readAllLines(file), m.group(2));
            if (slow == null) {
                wrong.add(name + ": no @Test method " + m.group(2) + " in " + DocumentedSnippetsTest.ROOT.relativize(file));
            } else if (slow != (m.group(3) != null)) {
                wrong.add(name + ": the table says " + (m.group(3) != null ? "slow" : "default run") + ", the test is "
                        + (slow ? "tagged slow" : "in the default run"));
            }
        }
        assertEquals(List.of(), wrong, "docs/GUARANTEES.md");
        long rows = doc.lines().filter(l -> l.startsWith("| ") && !l.startsWith("| guarantee")).count();
        assertTrue(rows >= 10 && references >= 2 * rows, rows + " guarantees, " + references + " tests named: each row names"
                + " its proof and its broken variant");
    }

    /** The test sources of every module, by class name. */
    private static Map<String, Path> testSources() throws IOException {
        try (Stream<Path> files = Files.walk(DocumentedSnippetsTest.ROOT, 12)) {
            return files.filter(p -> p.toString().contains("/src/test/java/") && p.toString().endsWith(".java"))
                    .collect(Collectors.toMap(p -> p.getFileName().toString().replace(".java", ""), p -> p, (a, b) -> a));
        }
    }

    /**
     * Whether {@code method} is tagged slow (on itself or its class), or null when the file declares no such
     * {@code @Test} method (its annotations: the lines just above its declaration).
     */
    private static Boolean slowTag(List<String> lines, String method) {
        boolean classSlow = false;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.startsWith("class ") || line.contains(" class ")) {
                for (int k = Math.max(0, i - 4); k < i; k++) {
                    classSlow |= lines.get(k).contains("@Tag(\"slow\")");
                }
                break;
            }
        }
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).matches("\\s*(public\\s+)?void " + method + "\\(.*")) {
                boolean test = false;
                boolean slow = classSlow;
                for (int k = i - 1; k >= 0 && isAnnotationLine(lines.get(k).strip()); k--) {
                    String annotation = lines.get(k).strip();
                    test |= annotation.startsWith("@Test") || annotation.startsWith("@RepeatedTest")
                            || annotation.startsWith("@ParameterizedTest");
                    slow |= lines.get(k).contains("@Tag(\"slow\")");
                }
                return test ? slow : null;
            }
        }
        return null;
    }

    /**
     * Whether a line above a method declaration still belongs to its annotations: one that starts one, or the
     * continuation of one written over several lines ({@code @ValueSource(strings = {"a",} / {@code "b"})}). A blank
     * line, a comment's end or the end of a statement or block is where the annotations begin.
     */
    private static boolean isAnnotationLine(String line) {
        return line.startsWith("@") || !(line.isEmpty() || line.endsWith(";") || line.endsWith("{") || line.endsWith("}")
                || line.endsWith("*/") || line.startsWith("//"));
    }
}
