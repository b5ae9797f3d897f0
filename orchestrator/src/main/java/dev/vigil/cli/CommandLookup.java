package dev.vigil.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/** Finds a command the way execvp would (a path, or a name on PATH), to reject a spec before anything starts. */
final class CommandLookup {
    private CommandLookup() {
    }

    /** Null when {@code command} would execute; otherwise why it would not. */
    static String whyNotExecutable(String command) {
        if (command.contains("/")) {
            Path p = Path.of(command);
            if (!Files.exists(p)) {
                return "command '" + command + "' does not exist";
            }
            if (Files.isDirectory(p) || !hasExecuteBit(p)) {
                return "command '" + command + "' is not an executable file";
            }
            return null;
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, command);
            if (Files.isRegularFile(p) && hasExecuteBit(p)) {
                return null;
            }
        }
        return "command '" + command + "' not found on PATH";
    }

    /** Files.isExecutable is true for root on any file; exec needs an execute bit even for root. */
    private static boolean hasExecuteBit(Path p) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
            return perms.contains(PosixFilePermission.OWNER_EXECUTE) || perms.contains(PosixFilePermission.GROUP_EXECUTE)
                    || perms.contains(PosixFilePermission.OTHERS_EXECUTE);
        } catch (IOException | UnsupportedOperationException e) {
            return Files.isExecutable(p);
        }
    }
}
