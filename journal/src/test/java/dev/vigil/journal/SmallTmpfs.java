package dev.vigil.journal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real, small file system for full-disk tests: a tmpfs (4 MiB unless said) mounted (as root) at a new temporary directory before
 * each test and lazily unmounted after it (after the test class's own {@code @AfterEach} methods, which may still look
 * at what it holds), filled on demand until it refuses more. A JUnit extension:
 * {@code @RegisterExtension final SmallTmpfs tmpfs = new SmallTmpfs("name");}. Used by FullFileSystemTest and the
 * orchestrator's JournalFullDiskTest and MailboxStoreFullDiskTest.
 */
public final class SmallTmpfs implements BeforeEachCallback, AfterEachCallback {
    private static final int[] FILLERS = {64 * 1024, 512};

    private final String name;
    private final String size;
    private Path mount;

    /** {@code name}: the mount's source name, as {@code mount} and {@code df} show it. */
    public SmallTmpfs(String name) {
        this(name, "4m");
    }

    /** {@code size}: as tmpfs's {@code size=} option takes it ({@code 32m}). */
    public SmallTmpfs(String name, String size) {
        this.name = name;
        this.size = size;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        mount = Files.createTempDirectory("vigil-full-");
        run("mount", "-t", "tmpfs", "-o", "size=" + size, name, mount.toString());
    }

    /** Lazily unmounts it (whatever still holds it open keeps it until it lets go) and removes its directory. */
    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        run("umount", "-l", mount.toString());
        Files.deleteIfExists(mount);
    }

    /** Where it is mounted (during a test). */
    public Path path() {
        return mount;
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
