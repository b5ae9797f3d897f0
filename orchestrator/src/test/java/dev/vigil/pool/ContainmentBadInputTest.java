package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.close.CloseSettings;
import dev.vigil.contain.ContainmentException;
import dev.vigil.contain.ContainmentMode;
import dev.vigil.contain.ContainmentSettings;
import dev.vigil.contain.Guardian;
import dev.vigil.journal.ContainmentChosen;
import dev.vigil.spawn.SpawnerOptions;

/**
 * Bad input to containment, one clear line each and nothing left half-started: a cgroup root that is not writable
 * (a cgroup2 file system mounted read-only here) refuses {@code containment=cgroup} and makes {@code auto} fall back,
 * saying why; a missing guardian binary refuses the open. After each refusal the journal dir can be opened again
 * (its lock released), no cgroup was made and no process of the refused orchestrator is alive.
 *
 * <p>{@code pids.max} is not tested: on this host the pids controller is bound to cgroup v1
 * ({@code /sys/fs/cgroup/pids}), the v2 hierarchy offers none ({@code cgroup.controllers} lists only hugetlb).
 */
@Timeout(120)
class ContainmentBadInputTest {
    @TempDir
    Path tmp;
    private Path readOnlyMount;

    @AfterEach
    void unmount() throws Exception {
        if (readOnlyMount != null) {
            new ProcessBuilder("umount", readOnlyMount.toString()).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** A cgroup2 file system mounted read-only (the v2 hierarchy seen through a read-only mount); null if not permitted. */
    private Path readOnlyCgroupRoot() throws Exception {
        Path at = Files.createDirectories(tmp.resolve("ro-cgroup2"));
        Process p = new ProcessBuilder("mount", "-t", "cgroup2", "-o", "ro", "none", at.toString())
                .redirectErrorStream(true).start();
        boolean mounted = p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        assumeTrue(mounted, "needs permission to mount a cgroup2 file system read-only");
        readOnlyMount = at;
        return at;
    }

    @Test
    void aCgroupRootThatIsNotWritableRefusesForcedCgroupModeInOneLineAndStartsNothing() throws Exception {
        Path parent = readOnlyCgroupRoot().resolve("vigil-read-only-" + ProcessHandle.current().pid());
        Path journal = tmp.resolve("j");
        ContainmentException e = assertThrows(ContainmentException.class, () -> Orchestrator.builder().journalDir(journal)
                .containment(ContainmentSettings.cgroups(parent)).closeSettings(CloseSettings.defaults()).open());
        String m = e.getMessage();
        assertFalse(m.contains("\n"), m);
        assertTrue(m.startsWith("cgroup containment unusable: path=" + parent), m);
        assertTrue(m.contains("not writable (read-only file system)"), m);
        assertTrue(m.contains("Delegate=yes") && m.contains("vigil.containment=pgroup"), "it says what to do: " + m);
        assertFalse(Files.exists(parent), "no cgroup made");
        assertNothingOfTheRefusedOpenAlive(journal);
        // the lock was released: the same journal dir opens (in the fallback, by configuration)
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).containment(ContainmentSettings.processGroups())
                .closeSettings(CloseSettings.defaults()).open()) {
            assertEquals(ContainmentMode.PROCESS_GROUP, o.containment().mode());
        }
    }

    @Test
    void underAutoANotWritableCgroupRootFallsBackToProcessGroupsAndSaysWhy() throws Exception {
        Path parent = readOnlyCgroupRoot().resolve("vigil-read-only-" + ProcessHandle.current().pid());
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("auto"))
                .containment(new ContainmentSettings(ContainmentSettings.AUTO, parent, true))
                .closeSettings(CloseSettings.defaults()).open()) {
            assertEquals(ContainmentMode.PROCESS_GROUP, o.containment().mode());
            assertTrue(o.containment().reason().contains("not writable (read-only file system)"), o.containment().reason());
            o.journal().writer().flush();
            ContainmentChosen chosen = (ContainmentChosen) JournalChecks.readAll(o.journal().writer().dir()).stream()
                    .filter(x -> x instanceof ContainmentChosen).findFirst().orElseThrow();
            assertEquals("pgroup", chosen.mode());
            assertTrue(chosen.reason().startsWith("cgroup v2 unusable: path=" + parent), chosen.reason());
            Pool pool = Pool.builder(o, "works").group("c", 1, ChildSpec.cDemo()).start();
            assertTrue(pool.closeWithReport().isClean());
        }
    }

    @Test
    void aMissingGuardianBinaryRefusesTheOpenInOneLineAndLeavesNothingRunning() throws Exception {
        Path nativeDir = Files.createDirectories(tmp.resolve("native-without-guardian"));
        try (Stream<Path> files = Files.list(Path.of(System.getProperty("vigil.native.dir")))) {
            for (Path f : files.toList()) {
                if (Files.isRegularFile(f) && !f.getFileName().toString().equals(Guardian.BINARY)) {
                    Files.copy(f, nativeDir.resolve(f.getFileName()), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Path journal = tmp.resolve("g");
        ContainmentException e = assertThrows(ContainmentException.class, () -> Orchestrator.builder().journalDir(journal)
                .spawnerOptions(SpawnerOptions.defaults().withNativeDir(nativeDir))
                .closeSettings(CloseSettings.defaults()).open());
        assertEquals("guardian binary missing: path=" + nativeDir.resolve(Guardian.BINARY).toAbsolutePath()
                + " (build native/ with make, or run without crash cleanup: vigil.guardian=off)", e.getMessage());
        assertNothingOfTheRefusedOpenAlive(journal);
        // the documented way out: no guardian
        try (Orchestrator o = Orchestrator.builder().journalDir(journal)
                .spawnerOptions(SpawnerOptions.defaults().withNativeDir(nativeDir))
                .containment(ContainmentSettings.defaults().withGuardian(false))
                .closeSettings(CloseSettings.defaults()).open()) {
            assertTrue(o.guardian() == null);
        }
    }

    /** No process names the journal dir (a guardian writes its record beside it) and the dir's lock is free. */
    private static void assertNothingOfTheRefusedOpenAlive(Path journal) throws IOException {
        String name = journal.toAbsolutePath().toString();
        List<String> found = new java.util.ArrayList<>();
        try (var procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try {
                    String cmd = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (cmd.contains(name)) {
                        found.add(proc.getFileName() + " " + cmd.replace('\0', ' '));
                    }
                } catch (IOException gone) {
                    // exited while we looked
                }
            }
        }
        assertEquals(List.of(), found, "processes of the refused open");
    }
}
