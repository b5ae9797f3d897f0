package dev.vigil.spawn;

import dev.vigil.spawn.internal.Linux;

/**
 * Starting a child failed; nothing of it is left behind (a shim that got as far as running was
 * reaped). Message: {@code spawn failed: command=/nope errno=2 (No such file or directory) stage=exec}.
 */
public final class SpawnException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** errno value when the cause has none (e.g. the doorbell pipe's reopen, an IOException). */
    public static final int UNKNOWN_ERRNO = -1;

    /** How much of a command line a message shows. */
    private static final int COMMAND_SHOWN = 200;

    private final String command;
    private final int errno;
    private final String stage;

    public SpawnException(String command, int errno, String stage, String detail) {
        super(message(command, errno, stage, detail));
        this.command = command;
        this.errno = errno;
        this.stage = stage;
    }

    private static String message(String command, int errno, String stage, String detail) {
        // a command of megabytes (an E2BIG) would make a line of megabytes: its start names it
        StringBuilder text = new StringBuilder("spawn failed: command=").append(command.length() <= COMMAND_SHOWN ? command
                : command.substring(0, COMMAND_SHOWN) + "... (" + command.length() + " characters)");
        text.append(" errno=").append(errno == UNKNOWN_ERRNO ? "unknown" : Linux.describeErrno(errno));
        text.append(" stage=").append(stage);
        if (detail != null && !detail.isEmpty()) {
            text.append(' ').append(detail);
        }
        return text.toString();
    }

    /** argv joined by spaces. */
    public String command() {
        return command;
    }

    /** The errno of the failed step, or {@link #UNKNOWN_ERRNO}. */
    public int errno() {
        return errno;
    }

    /** Which step failed: exec, chdir, setpgid, pdeathsig, close-fds, signals, usage, posix_spawn, pidfd_open, pipe2, status-pipe. */
    public String stage() {
        return stage;
    }
}
