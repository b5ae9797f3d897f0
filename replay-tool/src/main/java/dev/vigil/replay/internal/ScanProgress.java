package dev.vigil.replay.internal;

import java.io.PrintStream;

import dev.vigil.replay.ReplayText;

/**
 * Progress of a long scan on stderr, only when stderr is a terminal (never in a pipe or a test):
 * a single line rewritten at most once a second.
 */
public final class ScanProgress {
    private static final long INTERVAL_NANOS = 1_000_000_000L;
    private final PrintStream out;
    private final long startNanos = System.nanoTime();
    private long nextReport = startNanos + INTERVAL_NANOS;
    private long excerpts;
    private boolean printed;

    private ScanProgress(PrintStream out) {
        this.out = out;
    }

    /** Reports to stderr when the JVM has a console; otherwise counts silently. */
    public static ScanProgress onTerminal() {
        return new ScanProgress(System.console() != null ? System.err : null);
    }

    public static ScanProgress silent() {
        return new ScanProgress(null);
    }

    /** Called once per excerpt read (cheap: a clock read every 64 Ki excerpts). */
    public void tick() {
        if ((++excerpts & 0xFFFF) == 0 && out != null) {
            long now = System.nanoTime();
            if (now - nextReport >= 0) {
                nextReport = now + INTERVAL_NANOS;
                out.printf(ReplayText.NUMBERS, "\rvigil-replay: %,d events read (%.1f s)", excerpts, (now - startNanos) / 1e9);
                out.flush();
                printed = true;
            }
        }
    }

    public long excerpts() {
        return excerpts;
    }

    /** Clears the progress line, if one was printed. */
    public void done() {
        if (printed) {
            out.print("\r\033[K");
            out.flush();
            printed = false;
        }
    }
}
