package dev.vigil.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.child.ChildKind;
import dev.vigil.close.CloseSettings;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;

/**
 * docs/MAILBOX.md is the page a child in any language is written from, so its tables are checked against what runs:
 * the layout (every field's offset, the error text's size, the magic, the version, the default length), the state and
 * writer values and the ring record, against the C runtime's own {@code vigil-demo-child --print-layout} (which
 * MailboxLayoutParityTest holds equal to the Java descriptor); the handoff variables against the environment a real
 * pool child gets. Before, nothing compared the page with the code: a moved field would have left every child written
 * from it reading the wrong word.
 */
@Timeout(60)
class MailboxDocTablesTest {
    static final Path DOC = DocumentedSnippetsTest.ROOT.resolve("docs/MAILBOX.md");
    static final Pattern ROW = Pattern.compile("(?m)^\\| *([0-9]+) *\\| *([^|]*?) *\\| *([^|]*?) *\\|.*$");
    static final Pattern NAME = Pattern.compile("`([A-Z_]+)`|\\*\\*`?([A-Za-z_ ]+?)`?\\*\\*|^([a-z][a-z ]+)$");

    @TempDir
    Path tmp;

    static Map<String, String> printLayout() throws Exception {
        Process p = new ProcessBuilder(ChildKind.nativeDir().resolve("vigil-demo-child").toString(), "--print-layout")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "--print-layout did not end");
        assertEquals(0, p.exitValue(), out);
        Map<String, String> layout = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                layout.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return layout;
    }

    /** The rows of the table that follows {@code heading}'s line, up to the first line that is not a table row. */
    static String table(String doc, String heading) {
        int at = doc.indexOf(heading);
        assertTrue(at >= 0, "docs/MAILBOX.md: no '" + heading + "'");
        int start = doc.indexOf("\n|", at) + 1;
        int end = start;
        while (end < doc.length() && doc.charAt(end) == '|') {
            end = doc.indexOf('\n', end) + 1;
        }
        return doc.substring(start, end);
    }

    @Test
    void theLayoutTableGivesEveryFieldTheOffsetTheRuntimeUses() throws Exception {
        Map<String, String> layout = printLayout();
        String doc = Files.readString(DOC);
        Matcher row = ROW.matcher(table(doc, "## Layout (layout version"));
        int fields = 0;
        while (row.find()) {
            Matcher n = NAME.matcher(row.group(3));
            assertTrue(n.find(), "docs/MAILBOX.md layout row without a field name: " + row.group());
            String name = (n.group(1) != null ? n.group(1) : n.group(2) != null ? n.group(2) : n.group(3))
                    .trim().toUpperCase().replace(' ', '_');
            String key = name.equals("TRANSITION_RING") ? "RING_OFFSET" : name + "_OFFSET";
            assertTrue(layout.containsKey(key), "docs/MAILBOX.md names a field the runtime does not have: " + row.group());
            assertEquals(layout.get(key), row.group(1), "docs/MAILBOX.md offset of " + name + ": " + row.group());
            fields++;
        }
        assertEquals(28, fields, "layout rows with a field read from docs/MAILBOX.md");
        assertTrue(doc.contains("| 344 | " + layout.get("ERROR_TEXT_LENGTH") + " | `ERROR_TEXT`"), "ERROR_TEXT's size");
        assertTrue(doc.contains(": " + layout.get("DEFAULT_MAILBOX_LENGTH") + " bytes with the default ring of "
                + layout.get("DEFAULT_RING_CAPACITY") + " records)"), "the default mailbox length");
        assertEquals(Long.parseLong(layout.get("MAGIC")), Long.parseUnsignedLong(find(doc, "`MAGIC` = `0x([0-9A-F]+)`"), 16));
        assertEquals(layout.get("LAYOUT_VERSION"), find(doc, "`LAYOUT_VERSION` = ([0-9]+)"));
        assertEquals(layout.get("RING_OFFSET"), find(doc, "`MAILBOX_LENGTH` = ([0-9]+) \\+"));
    }

    @Test
    void theStateWriterAndRingRecordTablesGiveTheRuntimesValues() throws Exception {
        Map<String, String> layout = printLayout();
        String doc = Files.readString(DOC);
        Matcher cells = Pattern.compile("\\| ([A-Z_]+)(?: \\(legacy only\\))? \\| ([0-9]+) \\|").matcher(table(doc, "| state | value |"));
        Set<String> seen = new TreeSet<>();
        while (cells.find()) {
            String key = layout.containsKey("state." + cells.group(1)) ? "state." + cells.group(1) : "writer." + cells.group(1);
            assertEquals(layout.get(key), cells.group(2), "docs/MAILBOX.md value of " + cells.group(1));
            seen.add(key);
        }
        for (String key : layout.keySet()) {
            if (key.startsWith("state.") || key.startsWith("writer.")) {
                assertTrue(seen.contains(key), key + " is not in docs/MAILBOX.md's state and role table");
            }
        }
        Matcher record = ROW.matcher(table(doc, "**Ring record**"));
        int fields = 0;
        for (String name : new String[] {"TICKET", "SEQ", "TIME", "ORIGIN"}) {
            assertTrue(record.find(), "docs/MAILBOX.md ring record table ends before " + name);
            assertEquals(layout.get("RECORD_" + name + "_OFFSET"), record.group(1), "ring record " + name + ": " + record.group());
            fields++;
        }
        assertEquals(4, fields);
        assertTrue(doc.contains("(32 bytes, at `640 + (ticket % RING_CAPACITY) * 32`)")
                && layout.get("RING_RECORD_LENGTH").equals("32") && layout.get("RING_OFFSET").equals("640"), "ring record size");
    }

    /** The handoff table's variables are exactly those a mailbox child gets, less the optional and runtime-only ones. */
    @Test
    void theHandoffTableNamesExactlyTheVariablesARealChildGets() throws Exception {
        String doc = Files.readString(DOC);
        Set<String> documented = new TreeSet<>();
        Matcher row = Pattern.compile("(?m)^\\| `(VIGIL_[A-Z_]+)`(?:, `(VIGIL_[A-Z_]+)`)?(?:, `(VIGIL_[A-Z_]+)`)? \\| (.*) \\|$")
                .matcher(table(doc, "| variable | meaning |"));
        while (row.find()) {
            if (row.group(4).matches("(optional|Java children|Python children only|Java and Python children):.*")) {
                continue;
            }
            for (int g = 1; g <= 3; g++) {
                if (row.group(g) != null) {
                    documented.add(row.group(g));
                }
            }
        }
        Path dump = tmp.resolve("env.txt");
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "env").startTimeout(Duration.ofSeconds(30))
                    .group("dump", 1, ChildSpec.mailboxExec("/bin/sh", "-c", "env > " + dump + " && exec "
                            + ChildKind.nativeDir().resolve("vigil-demo-child")))
                    .start();
            assertEquals(5, pool.control("dump", 0, 1, 5, Duration.ofSeconds(10)).value());
            assertTrue(pool.closeWithReport().isClean());
        }
        Set<String> given = new TreeSet<>();
        for (String line : Files.readAllLines(dump)) {
            if (line.startsWith("VIGIL_")) {
                given.add(line.substring(0, line.indexOf('=')));
            }
        }
        assertEquals(given, documented, "docs/MAILBOX.md 'Handoff: environment variables' against a real child's environment");
    }

    private static String find(String doc, String regex) {
        Matcher m = Pattern.compile(regex).matcher(doc);
        assertTrue(m.find(), "docs/MAILBOX.md: no " + regex);
        return m.group(1);
    }
}
