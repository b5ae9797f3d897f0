package dev.vigil.journal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * A journal writer in a process of its own, for tests that need several writers or a killed one.
 * Appends {@link MailboxTransition} events whose {@code writer} is the given name and whose
 * {@code seq} counts from 0, and after every {@code flushEvery} events flushes and prints
 * {@code flushed N}: all of the first N events are then in the file.
 *
 * <pre>
 *   JournalWriterProcess dir name count flushEvery [goFile]
 * </pre>
 * count &lt; 0 writes until killed. With a goFile it prints {@code ready} and waits for the file to
 * exist before writing, so that several writers start together.
 */
public final class JournalWriterProcess {
    private JournalWriterProcess() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        String name = args[1];
        long count = Long.parseLong(args[2]);
        int flushEvery = Integer.parseInt(args[3]);
        Path go = args.length > 4 ? Path.of(args[4]) : null;
        int pid = (int) ProcessHandle.current().pid();
        try (JournalWriter writer = JournalWriter.open(dir)) {
            if (go != null) {
                System.out.println("ready");
                System.out.flush();
                while (!Files.exists(go)) {
                    LockSupport.parkNanos(1_000_000);
                }
            }
            for (long seq = 0; count < 0 || seq < count; seq++) {
                writer.append(event(name, pid, seq));
                if ((seq + 1) % flushEvery == 0) {
                    writer.flush();
                    System.out.println("flushed " + (seq + 1));
                    System.out.flush();
                }
            }
        }
        System.out.println("done " + count);
        System.out.flush();
    }

    /** The event number {@code seq} of writer {@code name}. */
    public static MailboxTransition event(String name, int pid, long seq) {
        return new MailboxTransition(MonotonicClock.nanos(), pid, name, 0, "group-" + name, (int) (seq % 7),
                seq, 1, 2, name, pid);
    }
}
