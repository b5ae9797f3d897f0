package dev.vigil.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

import dev.vigil.child.ChildKind;
import dev.vigil.child.demo.DemoBehaviour;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A user who knows the demo children from the docs only finds every setting's name: {@code vigil-demo-child --help}
 * prints each flag with its VIGIL_DEMO_* variable (exit 0), and docs/MAILBOX.md "Demo children" lists them. Before,
 * {@code --help} was "ERR: unknown or incomplete flag: flag=--help" (exit 2) and the docs named no variable.
 */
@Timeout(30)
class DemoChildHelpTest {
    @Test
    void everySettingIsNamedByHelpAndByTheDocs() throws Exception {
        Process p = new ProcessBuilder(ChildKind.nativeDir().resolve("vigil-demo-child").toString(), "--help")
                .redirectErrorStream(true).start();
        String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "vigil-demo-child --help did not end");
        assertEquals(0, p.exitValue(), help);
        String docs = Files.readString(DocumentedSnippetsTest.ROOT.resolve("docs/MAILBOX.md"));
        for (String name : DemoBehaviour.NAMES) {
            assertTrue(help.contains(name), name + " not in vigil-demo-child --help:\n" + help);
            assertTrue(docs.contains("`" + name), name + " not in docs/MAILBOX.md");
        }
    }
}
