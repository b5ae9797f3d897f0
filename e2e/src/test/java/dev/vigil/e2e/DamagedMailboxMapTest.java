package dev.vigil.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A mailbox map file damaged between runs (seeded bytes, so a failure repeats): the next {@code bin/vigil run} exits 1
 * with one line naming the file, what is wrong and what to do, and the JVM does not crash (no hs_err file). Before,
 * bytes in a segment passed Chronicle's plain open, whose later reads trust the segment's offsets: SIGSEGV (exit 134)
 * or an {@code ERR: ChronicleMap{...}} with no reason; a zeroed file waited a minute for its header to be "ready".
 */
@Timeout(120)
class DamagedMailboxMapTest {
    private static final long SEED = 20261204L;

    @TempDir
    Path work;

    enum Damage {
        /** Seeded bytes inside the self-describing header, under its checksum. */
        HEADER_BYTES,
        /** 64 KB of seeded bytes from offset 4096: segment 0's header and hash lookup. */
        SEGMENT_BYTES,
        /**
         * SEGMENT_BYTES, then the file's modification time set back to what the clean close left: a map unchanged since
         * its clean close is not checked again (MailboxStore#sealFile), and this one must not pass for unchanged.
         */
        SEGMENT_BYTES_TIME_KEPT,
        /** Every byte 0, length kept. */
        ZEROED,
        /** Cut to half its length. */
        HALF
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void aDamagedMapIsRefusedInOneLineNamingItAndTheJvmDoesNotCrash(Damage damage) throws Exception {
        Path spec = Files.writeString(work.resolve("pools.json"), """
                {"journalDir": "j", "cycles": 1,
                 "pools": [{"id": "p1", "groups": [{"name": "plain", "kind": "exec", "command": ["/bin/sleep", "600"],
                            "children": 1}]}]}
                """);
        Launchers.Result first = Launchers.vigil(work, 30, "run", spec.toString());
        assertEquals(0, first.exitCode(), first.toString());
        Path map = work.resolve("j-mailboxes.map");
        damage(map, damage);

        Launchers.Result next = Launchers.vigil(work, 30, "run", spec.toString());

        String said = (next.out() + next.err()).strip();
        assertEquals(1, next.exitCode(), next.toString());
        assertEquals(1, said.lines().count(), "one line:\n" + next);
        assertTrue(said.startsWith("ERR: mailbox map file=" + map + " is damaged: "), next.toString());
        assertTrue(said.contains("move it aside or remove it"), "says what to do:\n" + next);
        Launchers.Result again = Launchers.vigil(work, 30, "run", spec.toString());
        assertEquals(said, (again.out() + again.err()).strip(), "the refusing check left the file as it was");
        try (Stream<Path> files = Files.list(work)) {
            assertEquals(0, files.filter(f -> f.getFileName().toString().startsWith("hs_err")).count(),
                    "the JVM crashed:\n" + next);
        }
    }

    private static void damage(Path map, Damage damage) throws IOException {
        java.nio.file.attribute.FileTime closedAt = Files.getLastModifiedTime(map);
        Random random = new Random(SEED + damage.ordinal());
        try (RandomAccessFile file = new RandomAccessFile(map.toFile(), "rw")) {
            switch (damage) {
                case HEADER_BYTES -> write(file, 16, random, 64);
                case SEGMENT_BYTES, SEGMENT_BYTES_TIME_KEPT -> write(file, 4096, random, 64 * 1024);
                case ZEROED -> {
                    file.seek(0);
                    file.write(new byte[(int) file.length()]);
                }
                case HALF -> file.setLength(file.length() / 2);
            }
        }
        if (damage == Damage.SEGMENT_BYTES_TIME_KEPT) {
            Files.setLastModifiedTime(map, closedAt);
        }
    }

    private static void write(RandomAccessFile file, long offset, Random random, int length) throws IOException {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        file.seek(offset);
        file.write(bytes);
    }
}
