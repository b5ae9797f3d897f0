package dev.vigil.journal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real, small file system for full-disk tests: a 4 MiB tmpfs mounted (as root) under a test's temporary directory,
 * filled on demand until it refuses more. Used by FullFileSystemTest and the orchestrator's JournalFullDiskTest.
 */
public final class SmallTmpfs {
    private static final int[] FILLERS = {64 * 1024, 512};

    private final Path mount;

    private SmallTmpfs(Path mount) {
        this.mount = mount;
    }

    /** Mounts a 4 MiB tmpfs named {@code name} at a new directory under {@code parent}. */
    public static SmallTmpfs mount(Path parent, String name) throws Exception {
        Path mount = Files.createDirectories(parent.resolve("full-" + ProcessHandle.current().pid() + "-" + System.nanoTime()));
        run("mount", "-t", "tmpfs", "-o", "size=4m", name, mount.toString());
        return new SmallTmpfs(mount);
    }

    public Path path() {
        return mount;
    }

    /** Lazily unmounts it (whatever still holds it open keeps it until it lets go). */
    public void unmount() throws Exception {
        run("umount", "-l", mount.toString());
    }

    /** Writes files until the file system refuses more: 64 KiB blocks, then 512-byte ones into what is left. */
    public void fill() throws IOException {
        for (int block : FILLERS) {
            try (OutputStream out = Files.newOutputStream(mount.resolve("filler-" + block))) {
                byte[] bytes = new byte[block];
                while (true) {
                    out.write(bytes);
                }
            } catch (IOException full) {
                if (!String.valueOf(full.getMessage()).contains("No space left")) {
                    throw full;
                }
            }
        }
    }

    /** Deletes what {@link #fill} wrote: the file system has room again. */
    public void unfill() throws IOException {
        for (int block : FILLERS) {
            Files.deleteIfExists(mount.resolve("filler-" + block));
        }
    }

    private static void run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
    }
}
