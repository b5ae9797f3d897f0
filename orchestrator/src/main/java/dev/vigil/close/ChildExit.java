package dev.vigil.close;

/** How a child ended: exitCode (-1 when a signal ended it), signal (0 if none), and when the reaper collected it (CLOCK_MONOTONIC). */
public record ChildExit(int exitCode, int signal, long reapedNanos) {
}
