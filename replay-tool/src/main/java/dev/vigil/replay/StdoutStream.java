package dev.vigil.replay;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;

/**
 * The tool's standard output, which ends the command at its first failed write. A {@link PrintStream} only notes a
 * failed write and goes on: before, {@code export DIR > file} on a full disk exited 0 with the file cut short,
 * and {@code export DIR | head -1} read the whole journal after {@code head} had gone. Now a write that fails throws
 * {@link Failed}, which the command line answers as a shell does: a reader that went away (EPIPE, {@code | head})
 * ends the command quietly with 141 (128 + SIGPIPE); any other failure (no space, a closed descriptor) prints
 * {@code ERR: writing stdout failed: ...} and exits 2.
 */
final class StdoutStream extends OutputStream {
    /** Exit code when the reader of stdout went away: what a shell reports for a command SIGPIPE ended. */
    static final int EXIT_READER_GONE = 128 + 13;

    private final FileOutputStream fd = new FileOutputStream(FileDescriptor.out);
    /**
     * The first failed write, after which writes are dropped: the command ends on that one, and the flushes on its
     * way out (of the buffer above this stream, which keeps what it could not write) must not fail it again.
     */
    private boolean failed;

    /** A write to stdout failed; the output is incomplete. */
    static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failed(IOException cause) {
            super("writing stdout failed: " + cause.getMessage() + " (the output is incomplete)", cause);
        }

        /** The reader went away (a closed pipe), which is no error of the command. */
        boolean readerGone() {
            return String.valueOf(getCause().getMessage()).contains("Broken pipe");
        }

        /** Says so on {@code err} unless the reader went away; returns the exit code. */
        int report(PrintStream err) {
            if (readerGone()) {
                return EXIT_READER_GONE;
            }
            err.println("ERR: " + getMessage());
            return ReplayCli.EXIT_BAD_INPUT;
        }
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        if (failed) {
            return;
        }
        try {
            fd.write(b, off, len);
        } catch (IOException e) {
            failed = true;
            throw new Failed(e);
        }
    }
}
