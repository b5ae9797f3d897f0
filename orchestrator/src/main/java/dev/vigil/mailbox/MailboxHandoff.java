package dev.vigil.mailbox;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a child needs to attach to its mailbox, passed as environment variables (documented in
 * docs/MAILBOX.md; the C runtime reads the same names). JDK classes only: the Java child runtime parses it.
 *
 * @param mapFile     absolute path of the mailbox map file ({@value #FILE})
 * @param offset      byte offset of the mailbox in that file, a multiple of 64 ({@value #OFFSET})
 * @param layoutVersion {@link MailboxDescriptor#LAYOUT_VERSION} the parent wrote ({@value #LAYOUT_VERSION})
 * @param parentPid   the pid whose death the child must notice ({@value #PARENT_PID})
 * @param mode        sticky or legacy ({@value #PROTOCOL})
 * @param mailboxLength the mailbox's length in bytes, which depends on its ring capacity ({@value #LENGTH}; 0 when
 *                    the environment did not say: the identity line decides)
 */
public record MailboxHandoff(Path mapFile, long offset, int layoutVersion, int parentPid, ProtocolMode mode,
        String poolId, String group, int index, int mailboxLength) {

    public static final String FILE = "VIGIL_MAILBOX_FILE";
    public static final String OFFSET = "VIGIL_MAILBOX_OFFSET";
    public static final String LENGTH = "VIGIL_MAILBOX_LENGTH";
    public static final String LAYOUT_VERSION = "VIGIL_LAYOUT_VERSION";
    public static final String PARENT_PID = "VIGIL_PARENT_PID";
    public static final String PROTOCOL = "VIGIL_PROTOCOL";
    public static final String POOL_ID = "VIGIL_POOL_ID";
    public static final String GROUP = "VIGIL_GROUP";
    public static final String INDEX = "VIGIL_INDEX";

    /** The environment variables, in documentation order. */
    public Map<String, String> toEnv() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(FILE, mapFile.toAbsolutePath().toString());
        env.put(OFFSET, Long.toString(offset));
        env.put(LENGTH, Integer.toString(mailboxLength));
        env.put(LAYOUT_VERSION, Integer.toString(layoutVersion));
        env.put(PARENT_PID, Integer.toString(parentPid));
        env.put(PROTOCOL, mode.name().toLowerCase(java.util.Locale.ROOT));
        env.put(POOL_ID, poolId);
        env.put(GROUP, group);
        env.put(INDEX, Integer.toString(index));
        return env;
    }

    /** Parses the handoff from an environment; fails with name=value context on anything missing or wrong. */
    public static MailboxHandoff fromEnv(Map<String, String> env) {
        int version = (int) number(env, LAYOUT_VERSION);
        if (version != MailboxDescriptor.LAYOUT_VERSION) {
            throw new MailboxException("layout version mismatch: " + LAYOUT_VERSION + "=" + version + " supported=" + MailboxDescriptor.LAYOUT_VERSION);
        }
        return new MailboxHandoff(Path.of(required(env, FILE)), number(env, OFFSET), version, (int) number(env, PARENT_PID),
                ProtocolMode.parse(env.getOrDefault(PROTOCOL, "sticky")), env.getOrDefault(POOL_ID, ""),
                env.getOrDefault(GROUP, ""), (int) numberOr(env, INDEX, 0), (int) numberOr(env, LENGTH, 0));
    }

    private static String required(Map<String, String> env, String name) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            throw new MailboxException("missing environment variable: name=" + name);
        }
        return value.trim();
    }

    private static long number(Map<String, String> env, String name) {
        String value = required(env, name);
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new MailboxException("not a number: " + name + "=" + value, e);
        }
    }

    private static long numberOr(Map<String, String> env, String name, long fallback) {
        return env.containsKey(name) ? number(env, name) : fallback;
    }
}
