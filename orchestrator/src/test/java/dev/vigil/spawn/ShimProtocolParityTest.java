package dev.vigil.spawn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vigil.spawn.internal.ShimProtocol;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** ShimProtocol (Java) and shim_protocol.h (C) define the same numbers under the same names. */
class ShimProtocolParityTest {
    private static final Pattern DEFINE = Pattern.compile("(?m)^#define VIGIL_SHIM_(\\w+) (\\d+)$");

    @Test
    void javaAndCAgreeOnEveryStageExitCodeAndLength() throws Exception {
        Path header = Path.of(System.getProperty("vigil.root", "..")).resolve("native/src/spawn/shim_protocol.h");
        Map<String, Integer> c = new TreeMap<>();
        Matcher define = DEFINE.matcher(Files.readString(header));
        while (define.find()) {
            c.put(define.group(1), Integer.parseInt(define.group(2)));
        }
        Map<String, Integer> java = new TreeMap<>();
        for (Field field : ShimProtocol.class.getFields()) {
            boolean constant = Modifier.isStatic(field.getModifiers()) && field.getType() == int.class;
            if (constant && (field.getName().startsWith("STAGE_") || field.getName().startsWith("EXIT_")
                    || field.getName().equals("REPORT_LENGTH"))) {
                java.put(field.getName(), field.getInt(null));
            }
        }
        assertTrue(c.size() >= 12, "header parsed: " + c);
        assertEquals(c, java);
    }
}
