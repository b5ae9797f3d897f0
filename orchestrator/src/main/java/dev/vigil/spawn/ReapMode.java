package dev.vigil.spawn;

import java.util.Locale;

/** How the reaper learns of exits. Setting {@code vigil.reap.mode} ({@code VIGIL_REAP_MODE}): pidfd or waitpid. */
public enum ReapMode {
    /** One thread in epoll_wait over every child's pidfd, woken by the kernel at exit; no sleeping. The default. */
    PIDFD_POLL,
    /** Fallback where pidfd_open is missing: waitpid(pid, WNOHANG) per child, backing off 1 ms .. 50 ms. */
    WAITPID_BACKOFF;

    public static final String PROPERTY = "vigil.reap.mode";
    public static final String ENVIRONMENT = "VIGIL_REAP_MODE";

    /** The mode the setting names, PIDFD_POLL when unset. */
    public static ReapMode configured() {
        String value = System.getProperty(PROPERTY, System.getenv(ENVIRONMENT));
        if (value == null || value.isBlank()) {
            return PIDFD_POLL;
        }
        switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "pidfd": return PIDFD_POLL;
            case "waitpid": return WAITPID_BACKOFF;
            default: throw new IllegalArgumentException(PROPERTY + "=" + value + " (expected pidfd or waitpid)");
        }
    }
}
