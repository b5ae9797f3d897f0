package dev.vigil.contain;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Where cgroup v2 is mounted (from /proc/self/mountinfo) and which v2 cgroup this process is in (/proc/self/cgroup). */
public final class CgroupMount {
    private CgroupMount() {
    }

    /** The mount point of the cgroup2 file system, or null when none is mounted. */
    public static Path find() {
        return find(Path.of("/proc/self/mountinfo"));
    }

    static Path find(Path mountinfo) {
        try {
            for (String line : Files.readAllLines(mountinfo, StandardCharsets.UTF_8)) {
                // id parent major:minor root mount-point options [optional fields...] - fstype source super-options
                String[] f = line.split(" ");
                for (int i = 6; i + 1 < f.length; i++) {
                    if (f[i].equals("-")) {
                        if (f[i + 1].equals("cgroup2")) {
                            return Path.of(unescape(f[4]));
                        }
                        break;
                    }
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /** This process's cgroup v2 path relative to the mount ("/" at the root), from the {@code 0::} line. */
    public static String ownCgroup() {
        String own = ProcFiles.cgroupIn(Path.of("/proc/self/cgroup"));
        return own == null ? "/" : own;
    }

    /** mountinfo escapes space, tab, newline and backslash as octal. */
    private static String unescape(String s) {
        return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }
}
