package dev.vigil.contain;

import java.nio.file.Path;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * How pools are contained.
 *
 * @param requested {@code vigil.containment} ({@code VIGIL_CONTAINMENT}): {@code auto} (default: a cgroup
 *                  per pool where cgroup v2 is usable, else process groups, said in the journal and by the
 *                  CLI), {@code cgroup} (fail when unusable) or {@code pgroup} (the fallback, on purpose)
 * @param parent    {@code vigil.cgroup.parent} ({@code VIGIL_CGROUP_PARENT}): the cgroup directory under which
 *                  each orchestrator makes its own; null = {@code vigil} under this process's own cgroup
 * @param guardian  {@code vigil.guardian} ({@code VIGIL_GUARDIAN}): {@code on} (default) starts vigil-guardian,
 *                  which kills every pool if the orchestrator dies; {@code off} leaves that to PDEATHSIG alone
 *                  (direct children only)
 */
public record ContainmentSettings(String requested, Path parent, boolean guardian) {
    public static final String AUTO = "auto";
    public static final String CGROUP = "cgroup";
    public static final String PGROUP = "pgroup";

    public ContainmentSettings {
        requested = requested == null ? AUTO : requested.trim().toLowerCase(Locale.ROOT);
        if (!requested.equals(AUTO) && !requested.equals(CGROUP) && !requested.equals(PGROUP)) {
            throw new IllegalArgumentException("vigil.containment=" + requested + " is not auto, cgroup or pgroup");
        }
    }

    public static ContainmentSettings defaults() {
        return from(name -> {
            String v = System.getProperty(name);
            return v != null ? v : System.getenv(name.toUpperCase(Locale.ROOT).replace('.', '_'));
        });
    }

    /** Reads {@code vigil.containment} and {@code vigil.cgroup.parent} through {@code lookup}. */
    public static ContainmentSettings from(UnaryOperator<String> lookup) {
        String parent = lookup.apply("vigil.cgroup.parent");
        String guardian = lookup.apply("vigil.guardian");
        if (guardian != null && !guardian.equals("on") && !guardian.equals("off")) {
            throw new IllegalArgumentException("vigil.guardian=" + guardian + " is not on or off");
        }
        return new ContainmentSettings(lookup.apply("vigil.containment"),
                parent == null || parent.isBlank() ? null : Path.of(parent), !"off".equals(guardian));
    }

    public static ContainmentSettings processGroups() {
        return new ContainmentSettings(PGROUP, null, true);
    }

    public static ContainmentSettings cgroups(Path parent) {
        return new ContainmentSettings(CGROUP, parent, true);
    }

    public ContainmentSettings withGuardian(boolean on) {
        return new ContainmentSettings(requested, parent, on);
    }
}
