package dev.vigil.spawn;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where a child's stdin, stdout or stderr goes: the orchestrator's own descriptor, /dev/null, or a file.
 *
 * @param kind what to do
 * @param file the file for {@link Kind#READ}, {@link Kind#WRITE} and {@link Kind#APPEND}, else null
 */
public record Redirect(Kind kind, Path file) {
    /** The kinds of redirection. */
    public enum Kind { INHERIT, DISCARD, READ, WRITE, APPEND }

    /** Shares the orchestrator's descriptor. */
    public static final Redirect INHERIT = new Redirect(Kind.INHERIT, null);
    /** /dev/null: reads see end of file, writes vanish. */
    public static final Redirect DISCARD = new Redirect(Kind.DISCARD, null);

    public Redirect {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.INHERIT || kind == Kind.DISCARD) != (file == null)) {
            throw new IllegalArgumentException("redirect kind=" + kind + " file=" + file);
        }
    }

    /** stdin read from a file. */
    public static Redirect readFrom(Path file) {
        return new Redirect(Kind.READ, file);
    }

    /** Output to a file, created or truncated. */
    public static Redirect writeTo(Path file) {
        return new Redirect(Kind.WRITE, file);
    }

    /** Output appended to a file, created if missing. */
    public static Redirect appendTo(Path file) {
        return new Redirect(Kind.APPEND, file);
    }
}
