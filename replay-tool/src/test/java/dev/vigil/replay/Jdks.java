package dev.vigil.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The JDKs of this machine (/usr/lib/jvm), by the JAVA_VERSION of their release files, as bin/vigil-replay reads it. */
final class Jdks {
    private Jdks() {
    }

    /**
     * The java of the newest JDK of at least {@code feature} in /usr/lib/jvm, null when there is none; {@code chosen}
     * (a java, or "none" for no JDK), when not null, instead.
     */
    static Path newest(int feature, String chosen) throws IOException {
        if (chosen != null) {
            return chosen.equals("none") ? null : Path.of(chosen);
        }
        Path best = null;
        int bestFeature = feature - 1;
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return null;
        }
        try (var dirs = Files.list(jvms)) {
            for (Path jdk : dirs.sorted().toList()) {
                Path java = jdk.resolve("bin/java");
                if (!Files.isExecutable(java)) {
                    continue;
                }
                String v = version(java);
                int f = v.isEmpty() ? 0 : Integer.parseInt(v.split("\\.")[0]);
                if (f > bestFeature) {
                    best = java;
                    bestFeature = f;
                }
            }
        }
        return best;
    }

    /** JAVA_VERSION of the release file of the JDK of {@code java} (its bin/java), "" when it has none. */
    static String version(Path java) throws IOException {
        Path release = java.toRealPath().getParent().getParent().resolve("release");
        if (!Files.isRegularFile(release)) {
            return "";
        }
        for (String line : Files.readAllLines(release)) {
            if (line.matches("JAVA_VERSION=\"[0-9][0-9.]*\"")) {
                return line.substring("JAVA_VERSION=\"".length(), line.length() - 1);
            }
        }
        return "";
    }
}
