package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import dev.vigil.child.ChildExitCodes;
import dev.vigil.child.ChildKind;
import dev.vigil.child.SpawnedChild;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The C header and the Java descriptor describe one layout: every constant, both directions. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class MailboxLayoutParityTest {
    @TempDir
    Path dir;

    @Test
    void cAndJavaAgreeOnEveryOffsetAndCode() throws Exception {
        Map<String, Long> c = printedLayout();
        Map<String, Long> java = new TreeMap<>();
        constants(MailboxDescriptor.class, "", java);
        constants(MailboxState.class, "state.", java);
        constants(ChildExitCodes.class, "exit.", java);
        java.remove("exit.ABORTED"); // in-process runs only; no C counterpart
        for (WriterRole role : WriterRole.values()) {
            java.put("writer." + role.name(), (long) role.code());
        }
        for (ProtocolMode mode : ProtocolMode.values()) {
            java.put("protocol." + mode.name(), (long) mode.code());
        }
        assertEquals(java, c, "C layout (left: Java, right: vigil-demo-child --print-layout)");
    }

    @Test
    void theDescriptorIsSelfConsistent() {
        assertEquals(0, MailboxDescriptor.STATE_WORD_OFFSET % MailboxDescriptor.CACHE_LINE_LENGTH);
        assertEquals(0, MailboxDescriptor.SHUTDOWN_WORD_OFFSET % MailboxDescriptor.CACHE_LINE_LENGTH);
        assertEquals(0, MailboxDescriptor.SHUTDOWN_ACK_OFFSET % MailboxDescriptor.CACHE_LINE_LENGTH);
        assertEquals(0, MailboxDescriptor.COMMAND_ID_OFFSET % MailboxDescriptor.CACHE_LINE_LENGTH);
        assertEquals(0, MailboxDescriptor.RESULT_ID_OFFSET % MailboxDescriptor.CACHE_LINE_LENGTH);
        assertEquals(0, MailboxDescriptor.RING_HEAD_OFFSET % MailboxDescriptor.CACHE_LINE_LENGTH);
        assertTrue(MailboxDescriptor.ERROR_TEXT_OFFSET + MailboxDescriptor.ERROR_TEXT_LENGTH <= MailboxDescriptor.RING_HEAD_OFFSET);
        long word = MailboxDescriptor.stateWord(MailboxState.CONTROL_DONE, WriterRole.CHILD, 17);
        assertEquals(MailboxState.CONTROL_DONE, MailboxDescriptor.state(word));
        assertEquals(WriterRole.CHILD.code(), MailboxDescriptor.writerCode(word));
        assertEquals(17, MailboxDescriptor.seq(word));
        assertEquals("CONTROL_DONE/CHILD#17", MailboxDescriptor.describe(word));
        MailboxException bad = assertThrows(MailboxException.class, () -> MailboxDescriptor.checkHeader(1, 1, 1, 1));
        assertTrue(bad.getMessage().startsWith("not a vigil mailbox: magic=0x1"), bad.getMessage());
    }

    private Map<String, Long> printedLayout() throws Exception {
        Path out = dir.resolve("layout.txt");
        try (SpawnedChild child = SpawnedChild.spawn(List.of(ChildKind.nativeDir().resolve("vigil-demo-child").toString(), "--print-layout"), Map.of(), out)) {
            assertEquals(0, child.awaitExit(Duration.ofSeconds(20)));
        }
        Map<String, Long> layout = new TreeMap<>();
        for (String line : Files.readAllLines(out)) {
            int eq = line.indexOf('=');
            layout.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
        }
        return layout;
    }

    private static void constants(Class<?> type, String prefix, Map<String, Long> into) throws IllegalAccessException {
        for (Field field : type.getDeclaredFields()) {
            int m = field.getModifiers();
            if (Modifier.isPublic(m) && Modifier.isStatic(m) && Modifier.isFinal(m)
                    && (field.getType() == int.class || field.getType() == long.class)) {
                into.put(prefix + field.getName(), ((Number) field.get(null)).longValue());
            }
        }
    }
}
