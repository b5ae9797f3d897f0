package dev.vigil.journal;

/** A journal could not be written or read; the message names the directory, file and position. */
public class JournalException extends RuntimeException {
    public JournalException(String message) {
        super(printable(message));
    }

    public JournalException(String message, Throwable cause) {
        super(printable(message), cause);
    }

    /** Whether {@code t} is the JVM's report of a SIGBUS on a mapped file (a file shorter than its mapping). */
    public static boolean isMemoryFault(Throwable t) {
        return t instanceof InternalError && String.valueOf(t.getMessage()).contains("unsafe memory access");
    }

    /**
     * What went wrong in {@code t}, in words a user can act on: its message (control characters
     * such as NUL shown as {@code \\uXXXX}), never its class name; a memory fault is named as one.
     */
    public static String plain(Throwable t) {
        if (isMemoryFault(t)) {
            return "memory fault on a mapped journal file (the file is shorter than its mapping, or the disk is full)";
        }
        if (t instanceof java.nio.file.NoSuchFileException || t instanceof java.nio.file.AccessDeniedException) {
            return ((java.nio.file.FileSystemException) t).getFile() + ": " + reason(t);
        }
        if (t instanceof java.nio.file.FileAlreadyExistsException f && f.getFile() != null) {
            return f.getFile() + ": already exists" + (java.nio.file.Files.isDirectory(java.nio.file.Path.of(f.getFile()))
                    ? "" : " and is not a directory");
        }
        if (t instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getFile() + ": " + printable(f.getReason());
        }
        String m = t.getMessage();
        if (m != null) {
            m = CLASS_NAME.matcher(m).replaceAll(""); // a wrapper's message is its cause's toString()
        }
        if (m == null || m.isBlank()) {
            Throwable cause = t.getCause();
            return cause != null && cause != t ? plain(cause) : "no detail given";
        }
        return printable(m);
    }

    /**
     * "no space left on MOUNT (TYPE)" when {@code t} comes from a full file system holding {@code path}, else null:
     * for files beside the journal (the mailbox map) in the journal's words.
     */
    public static String noSpaceLeft(java.nio.file.Path path, Throwable t) {
        return WriteFailure.noSpace(path, t);
    }

    /**
     * What went wrong in {@code t} without the file it names (for a message that names the file itself): "permission
     * denied", "no such file or directory", the system's reason, else {@link #plain}.
     */
    public static String reason(Throwable t) {
        if (t instanceof java.nio.file.NoSuchFileException) {
            return "no such file or directory";
        }
        if (t instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (t instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return printable(f.getReason());
        }
        return plain(t);
    }

    /** {@code java.lang.UnsupportedOperationException: } and the like, inside a message. */
    private static final java.util.regex.Pattern CLASS_NAME =
            java.util.regex.Pattern.compile("\\b(?:[a-z][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error)\\b:? ?");

    /** {@code s} with control characters (NUL, escape, ...) other than spaces written as {@code \\uXXXX}. */
    public static String printable(String s) {
        if (s == null) {
            return null;
        }
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean control = Character.isISOControl(c) && c != '\n' && c != '\t';
            if (control && b == null) {
                b = new StringBuilder(s.length() + 16).append(s, 0, i);
            }
            if (b != null) {
                if (control) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
        }
        return b == null ? s : b.toString();
    }
}
