package dev.vigil.journal;

import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * For {@link CallersMemoryFaultTest}, in a JVM of its own: a caller reads a mapped file of its own that was cut short
 * (SIGBUS; the JVM raises the fault at a later instruction) and appends an event right after, as the close engine does
 * after a mailbox read; prints where the fault was raised, the journal's gap, the kinds appended and the kinds the
 * journal holds.
 * Not a pool child: the test starts it with ProcessBuilder.
 */
final class CallersFaultProcess {
    private static final int PAGE = 4096;
    private static long sink;

    private CallersFaultProcess() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        List<String> appended = new ArrayList<>();
        try (JournalWriter w = JournalWriter.open(dir.resolve("journal"))) {
            // the same path once with a whole file: its calls are linked, nothing raises a fault on the way in
            cutThenAppend(dir.resolve("whole.map"), false, w, EventType.CHILD_ACKED);
            appended.add(EventType.CHILD_ACKED.name());
            // each kind's first encoding in this JVM calls into the VM, where the fault is raised; a safepoint between
            // the read and the append may raise it before (rare): then the next kind
            String where = "none";
            for (EventType kind : List.of(EventType.MAILBOX_RELEASED, EventType.CHILD_REAPED, EventType.CLOSE_COMPLETED)) {
                where = cutThenAppend(dir.resolve(kind + ".map"), true, w, kind);
                appended.add(kind.name());
                if (!where.startsWith("before append")) {
                    break;
                }
            }
            System.out.println("CUT " + where);
            w.append(SampleEvents.sample(EventType.CHILD_ACKED, 3));
            appended.add(EventType.CHILD_ACKED.name());
            w.flush();
            System.out.println("GAP " + w.gap().map(JournalGap::describe).orElse("none"));
        }
        System.out.println("APPENDED " + appended);
        List<String> kinds = new ArrayList<>();
        try (JournalReader r = JournalReader.open(dir.resolve("journal"))) {
            r.fromStart().readAll((i, e) -> kinds.add(e.type().name()));
        }
        System.out.println("EVENTS " + kinds);
    }

    /**
     * Maps {@code file} (4 pages), cuts it to 0 bytes when {@code cut}, reads a word of its third page and appends an
     * event of {@code kind}; where the memory fault was raised, if any ({@link #where}).
     */
    private static String cutThenAppend(Path file, boolean cut, JournalWriter w, EventType kind) throws Exception {
        JournalEvent event = SampleEvents.sample(kind, 2);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4 * PAGE), 0);
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, 4 * PAGE);
            if (cut) {
                ch.truncate(0);
            }
            return where(readThenAppend(map, w, event));
        }
    }

    /** Reads a word of {@code map}, then appends {@code e}; the memory fault raised on the way, if any. */
    private static Throwable readThenAppend(MappedByteBuffer map, JournalWriter w, JournalEvent e) {
        try {
            sink += map.getLong(2 * PAGE);
            w.append(e);
            return null;
        } catch (InternalError fault) {
            return fault;
        }
    }

    /** "none", or "in append" / "before append" and the fault's message. */
    private static String where(Throwable fault) {
        if (fault == null) {
            return "none";
        }
        boolean inAppend = false;
        for (StackTraceElement f : fault.getStackTrace()) {
            inAppend |= f.getClassName().equals(JournalWriter.class.getName()) && f.getMethodName().equals("append");
        }
        return (inAppend ? "in append: " : "before append: ") + fault.getMessage();
    }
}
