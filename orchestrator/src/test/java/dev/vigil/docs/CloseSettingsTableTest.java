package dev.vigil.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import dev.vigil.close.CloseSettings;

/**
 * docs/CLOSE.md "Settings" names each close setting with its default as {@link CloseSettings#DOCS} does, and every
 * one is read from a system property the way the page says ({@code -Dvigil.close.window=7s}). The page also said the
 * names were read as environment variables ({@code VIGIL_CLOSE_WINDOW}); nothing reads them, and the page no longer
 * says so.
 */
class CloseSettingsTableTest {
    @Test
    void theSettingsTableGivesEverySettingItsDefault() throws Exception {
        String doc = Files.readString(DocumentedSnippetsTest.ROOT.resolve("docs/CLOSE.md"));
        int from = doc.indexOf("## Settings (`CloseSettings`)");
        assertTrue(from >= 0, "docs/CLOSE.md: no Settings section");
        Matcher row = Pattern.compile("(?m)^\\| `(vigil\\.close\\.\\w+)` \\| ([^|]+?) \\|").matcher(doc.substring(from));
        Map<String, String> documented = new LinkedHashMap<>();
        while (row.find()) {
            documented.put(row.group(1), row.group(2));
        }
        Map<String, String> code = new LinkedHashMap<>();
        CloseSettings.DOCS.forEach((name, docs) -> code.put(name, docs.substring(0, docs.indexOf(':'))));
        assertEquals(code, documented, "docs/CLOSE.md Settings against CloseSettings.DOCS");
        assertTrue(!doc.contains("VIGIL_CLOSE_WINDOW"), "no environment variable is read");
    }

    @Test
    void everySettingIsReadFromItsSystemPropertyName() {
        Map<String, String> props = Map.of(CloseSettings.WINDOW, "7s", CloseSettings.HARD_CAP, "1m",
                CloseSettings.FIXED_BUDGET, "1500ms", CloseSettings.ESCALATION, "term-then-kill", CloseSettings.GRACE, "PT3S");
        String read = CloseSettings.from(props::get).toString();
        assertEquals("vigil.close.window=PT7S vigil.close.hardCap=PT1M vigil.close.fixedBudget=PT1.5S"
                + " vigil.close.escalation=term-then-kill vigil.close.grace=PT3S vigil.close.maxParallel=4", read);
    }
}
