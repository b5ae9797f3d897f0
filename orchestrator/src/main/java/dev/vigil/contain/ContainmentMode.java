package dev.vigil.contain;

/** How an orchestrator keeps every descendant of a pool inside something it can kill as a whole. */
public enum ContainmentMode {
    /** A cgroup (v2) per pool: the shim joins it before exec; cgroup.kill ends everything in it, forks included. */
    CGROUP("cgroup"),
    /** The fallback: each child leads a process group; a descendant that calls setsid (or a double fork that does) escapes. */
    PROCESS_GROUP("pgroup");

    private final String label;

    ContainmentMode(String label) {
        this.label = label;
    }

    /** {@code cgroup} / {@code pgroup}, as the journal and the CLI print it. */
    public String label() {
        return label;
    }
}
