package dev.vigil.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;

/**
 * The pool runner's standard output, which notes its first failed write and drops every later one. A run cannot end at
 * that write, as vigil-replay does: its pools are open, and a close is what the run is for. So it runs to its end, and
 * {@link #exitCode} then says what the output lost. Before, {@code vigil run SPEC > /dev/full} exited 0 with nothing
 * written (a {@link PrintStream} swallows the failure), and {@code vigil run SPEC | head -1} too.
 */
final class NotedStdout extends OutputStream {
    /** Exit code when the reader of stdout went away: what a shell reports for a command SIGPIPE ended. */
    static final int EXIT_READER_GONE = 128 + 13;

    private final OutputStream target;
    /** The first write that failed; then nothing more is written (a gap inside the output would read as whole). */
    private volatile IOException failed;

    NotedStdout() {
        this(new FileOutputStream(FileDescriptor.out));
    }

    NotedStdout(OutputStream target) {
        this.target = target;
    }

    @Override
    public void write(int b) {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
        if (failed != null) {
            return;
        }
        try {
            target.write(b, off, len);
        } catch (IOException e) {
            failed = e;
        }
    }

    /**
     * The run's exit code once its output is told apart: a reader that went away (EPIPE, {@code | head}) ends a clean run
     * quietly with 141, as a shell reports a command SIGPIPE ended; any other failed write (no space, a closed
     * descriptor) prints one {@code ERR:} line on {@code err} and makes a clean run exit 1. A failed run keeps its code.
     */
    int exitCode(int runExitCode, PrintStream err) {
        IOException e = failed;
        if (e == null) {
            return runExitCode;
        }
        if (String.valueOf(e.getMessage()).contains("Broken pipe")) {
            return runExitCode == PoolRunner.CLEAN ? EXIT_READER_GONE : runExitCode;
        }
        err.println("ERR: writing stdout failed: " + e.getMessage() + " (the run's output is incomplete; it ended with exit "
                + runExitCode + ", its journal holds every close)");
        return runExitCode == PoolRunner.CLEAN ? PoolRunner.CLOSE_FAILED : runExitCode;
    }
}
