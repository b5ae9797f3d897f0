/*
 * The contract between the Java spawner (dev.vigil.spawn.internal.ShimProtocol) and
 * vigil-spawn-shim. Keep both sides identical; ShimProtocolParityTest compares them.
 *
 * Invocation:  vigil-spawn-shim <parent-pid> <status-fd> [--outlive-parent] [--cgroup <dir>] [--cwd <dir>] [--keep-fd <fd>]
 *                [--log <stdout-file> <stderr-file> <max-bytes> <keep>] -- <command> [args...]
 * (--keep-fd: one more descriptor, above the status fd, that survives into the command: a Java child's doorbell)
 *
 * Status pipe: the shim marks <status-fd> close-on-exec. A successful exec closes it, so the
 * parent reads EOF (zero bytes). Any failure writes one report, then the shim exits with one of
 * the codes below:
 *
 *   offset 0  int32  stage  (VIGIL_SHIM_STAGE_*)
 *   offset 4  int32  errno  (0 where the stage has none, e.g. PARENT_GONE)
 *
 * both in native byte order (parent and shim run on the same host).
 */
#ifndef VIGIL_SHIM_PROTOCOL_H
#define VIGIL_SHIM_PROTOCOL_H

#define VIGIL_SHIM_REPORT_LENGTH 8

#define VIGIL_SHIM_STAGE_USAGE 1
#define VIGIL_SHIM_STAGE_PDEATHSIG 2
#define VIGIL_SHIM_STAGE_PARENT_GONE 3
#define VIGIL_SHIM_STAGE_SETPGID 4
#define VIGIL_SHIM_STAGE_CHDIR 5
#define VIGIL_SHIM_STAGE_CLOSE_FDS 6
#define VIGIL_SHIM_STAGE_SIGNALS 7
#define VIGIL_SHIM_STAGE_EXEC 8
/* Joining the pool's cgroup (--cgroup): writing 0 to <dir>/cgroup.procs failed (errno says why). */
#define VIGIL_SHIM_STAGE_CGROUP 9
/* --log: opening a log file, the pipes, or starting the log writer failed (errno says why). */
#define VIGIL_SHIM_STAGE_LOG 10

/* The parent died (or re-parented us) before PDEATHSIG was armed: nobody is left to supervise. */
#define VIGIL_SHIM_EXIT_PARENT_GONE 125
/* A setup step before exec failed (usage, prctl, cgroup, setpgid, chdir, closing fds, signals). */
#define VIGIL_SHIM_EXIT_SETUP_FAILED 126
/* execvp failed; the report carries its errno (same code a shell uses). */
#define VIGIL_SHIM_EXIT_EXEC_FAILED 127

#endif
