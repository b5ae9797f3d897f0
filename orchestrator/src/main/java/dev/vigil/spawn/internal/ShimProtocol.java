package dev.vigil.spawn.internal;

/**
 * Java side of native/src/spawn/shim_protocol.h: how vigil-spawn-shim is invoked and what its
 * status pipe carries. Keep identical to the header; ShimProtocolParityTest compares them.
 */
public final class ShimProtocol {
    public static final String SHIM_BINARY = "vigil-spawn-shim";
    /** The descriptor number the status pipe's write end gets in the shim (a spawn file action dup2s it). */
    public static final int STATUS_FD = 3;
    /** The descriptor number a doorbell pipe's read end gets in the child ({@code --keep-fd}; VIGIL_DOORBELL_FD). */
    public static final int DOORBELL_FD = 4;

    public static final int REPORT_LENGTH = 8;

    public static final int STAGE_USAGE = 1;
    public static final int STAGE_PDEATHSIG = 2;
    public static final int STAGE_PARENT_GONE = 3;
    public static final int STAGE_SETPGID = 4;
    public static final int STAGE_CHDIR = 5;
    public static final int STAGE_CLOSE_FDS = 6;
    public static final int STAGE_SIGNALS = 7;
    public static final int STAGE_EXEC = 8;
    public static final int STAGE_CGROUP = 9;
    public static final int STAGE_LOG = 10;

    public static final int EXIT_PARENT_GONE = 125;
    public static final int EXIT_SETUP_FAILED = 126;
    public static final int EXIT_EXEC_FAILED = 127;

    private ShimProtocol() {
    }

    /** The stage's name as error messages print it ({@code stage=exec}). */
    public static String stageName(int stage) {
        switch (stage) {
            case STAGE_USAGE: return "usage";
            case STAGE_PDEATHSIG: return "pdeathsig";
            case STAGE_PARENT_GONE: return "parent-gone";
            case STAGE_SETPGID: return "setpgid";
            case STAGE_CHDIR: return "chdir";
            case STAGE_CLOSE_FDS: return "close-fds";
            case STAGE_SIGNALS: return "signals";
            case STAGE_EXEC: return "exec";
            case STAGE_CGROUP: return "cgroup";
            case STAGE_LOG: return "log";
            default: return "unknown-" + stage;
        }
    }
}
