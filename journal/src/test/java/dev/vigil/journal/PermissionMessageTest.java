package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A journal a user may not read says "permission denied" with the path, read as a user who is not root (root reads
 * through mode 000): a marker file of mode 000 used to give no reason ({@code unreadable journal marker
 * file=/j/vigil-journal.properties: /j/vigil-journal.properties}), and a journal directory of mode 000 read as "not
 * a Vigil journal". The reader runs in a JVM of its own as user nobody ({@code setpriv}) when the test runs as root.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PermissionMessageTest {
    private static Path root;
    private static Path classPath;

    /** Opens the journal given and prints "opened" or the error's message, one line. */
    public static final class Probe {
        public static void main(String[] args) {
            try {
                JournalReader.open(Path.of(args[0])).close();
                System.out.println("opened");
            } catch (JournalException e) {
                System.out.println(e.getMessage());
            }
        }
    }

    @BeforeAll
    static void worldReadableCopies() throws IOException {
        root = Files.createTempDirectory("vigil-perm-");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        classPath = root.resolve("cp");
        Files.createDirectories(classPath);
    }

    @AfterAll
    static void cleanUp() throws IOException {
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwx------" : "rw-------"));
            }
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static Path journal(String name) throws IOException {
        Path dir = root.resolve(name);
        try (JournalWriter w = JournalWriter.open(dir)) {
            for (JournalEvent e : SampleEvents.oneOfEach(1)) {
                w.append(e);
            }
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
        return dir;
    }

    @Test
    void aMarkerFileOfMode000SaysPermissionDeniedWithItsPath() throws Exception {
        Path dir = journal("marker000");
        Path marker = dir.resolve(JournalSchema.MARKER_FILE);
        Files.setPosixFilePermissions(marker, PosixFilePermissions.fromString("---------"));
        String line = openAsAnotherUser(dir);
        assertTrue(line.contains("permission denied") && line.contains(marker.toString()), line);
    }

    @Test
    void aJournalDirOfMode000SaysPermissionDeniedNotNotAJournal() throws Exception {
        Path dir = journal("dir000");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("---------"));
        String line = openAsAnotherUser(dir);
        assertTrue(line.contains("permission denied") && line.contains(dir.toString()), line);
        assertTrue(!line.contains("not a Vigil journal"), line);
    }

    /** The probe's one line, run as user nobody when this runs as root. */
    private static String openAsAnotherUser(Path dir) throws Exception {
        List<String> cmd = new ArrayList<>();
        if ("root".equals(System.getProperty("user.name"))) {
            assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv is needed to read as another user");
            cmd.addAll(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        }
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m", "-cp",
                readableClassPath(), Probe.class.getName(), dir.toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe ends");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** The test class path with each entry copied where any user may read it (a root's ~/.m2 is not). */
    private static String readableClassPath() throws IOException {
        List<String> entries = new ArrayList<>();
        int n = 0;
        for (String e : ForkedJvm.testClassPath().split(File.pathSeparator)) {
            Path from = Path.of(e);
            if (!Files.exists(from)) {
                continue;
            }
            Path to = classPath.resolve(n++ + "-" + from.getFileName());
            if (!Files.exists(to)) {
                copyReadable(from, to);
            }
            entries.add(to.toString());
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void copyReadable(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                    Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rwxr-xr-x"));
                } else {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(t, PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
        }
    }
}
