package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many damaged copies of a real journal, every kind of damage in turn (bytes flipped, blocks
 * overwritten or zeroed, files cut short, a 0xFF run, the close index or the queue metadata
 * garbled, the cycle file emptied, zeroed, replaced by random bytes whose first word has its top
 * bit set, or removed, its tail page zeroed): every command answers each within a bound, either
 * with the undamaged journal's answer (exit 0 or 1, nothing on stderr) or with one ERR: line and
 * exit code 2, never a stack trace, never a shorter-but-clean answer. Seeded
 * ({@code -Dvigil.replay.fuzzSeed=N} to replay a run).
 */
@Timeout(value = 170, unit = TimeUnit.SECONDS)
class DamagedJournalFuzzTest {
    private static final int COPIES = 132;
    private static final int KINDS = 12;
    private static final Duration BOUND_PER_COMMAND = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    @Test
    void everyDamagedCopyIsAnsweredWithinABound() throws IOException {
        Path full = tmp.resolve("full");
        Scenarios.overlapping(full);
        Path base = tmp.resolve("base");
        JournalFiles.copyCompact(full, base);
        long seed = Long.getLong("vigil.replay.fuzzSeed", 20261202L);
        Random random = new Random(seed);
        int refused = 0;
        int answered = 0;
        List<String> kinds = new ArrayList<>();
        Path dir = tmp.resolve("copy");
        String[][] commands = {{"closes", dir.toString()}, {"audit", dir.toString()}, {"stats", dir.toString()},
            {"show", dir.toString(), "1"}, {"show", dir.toString(), "2"}, {"show", dir.toString(), "3"},
            {"export", dir.toString()}};
        JournalFiles.copyCompact(base, dir);
        java.util.Map<String, CliRun> undamaged = new java.util.HashMap<>();
        for (String[] args : commands) {
            undamaged.put(String.join(" ", args), CliRun.of(args));
        }
        for (int copy = 0; copy < COPIES; copy++) {
            deleteTree(dir);
            JournalFiles.copyCompact(base, dir);
            String damage = damage(dir, copy % KINDS, random);
            kinds.add(damage);
            for (int k = 0; k < 2; k++) { // two of the commands per copy keeps the run short
                String[] args = commands[random.nextInt(commands.length)];
                String what = "seed=" + seed + " copy=" + copy + " damage=" + damage + " command=" + String.join(" ", args);
                CliRun run = assertTimeoutPreemptively(BOUND_PER_COMMAND, () -> CliRun.of(args), what);
                boolean ok = (run.exit() == 0 || run.exit() == 1) && run.err().isEmpty();
                assertTrue(ok || run.isOneErrLine(), () -> what + "\n" + run);
                assertTrue(!run.err().contains("\u0000") && !run.err().matches("(?s).*\\b(java|net)\\.[a-z]+\\.[A-Za-z.]*(Exception|Error)\\b.*"),
                        () -> what + ": no NUL bytes, no exception class names\n" + run);
                if (ok) {
                    CliRun clean = undamaged.get(String.join(" ", args));
                    assertTrue(clean.exit() == run.exit() && clean.out().equals(run.out()),
                            () -> what + ": an answer without an error must be the undamaged journal's answer\n" + run
                                    + "\n--- undamaged ---\n" + clean);
                    answered++;
                } else {
                    refused++;
                }
            }
        }
        System.out.printf("fuzz seed=%d: %d commands answered, %d refused with one ERR: line%n", seed, answered, refused);
        assertTrue(refused > 0, "some damage must be noticed");
    }

    /** Damages one journal copy in place with damage of the given kind; returns what was done. */
    static String damage(Path dir, int kind, Random random) throws IOException {
        Path cycle = JournalFiles.cycleFiles(dir).get(0);
        switch (kind) {
            case 7 -> {
                Files.write(cycle, new byte[0]);
                return "cycle file emptied";
            }
            case 8 -> {
                Files.write(cycle, new byte[(int) Files.size(cycle)]);
                return "cycle file zeroed";
            }
            case 9 -> {
                byte[] junk = new byte[(int) Files.size(cycle)];
                random.nextBytes(junk);
                junk[3] |= (byte) 0x80; // the top bit of the first (little-endian) word
                Files.write(cycle, junk);
                return "cycle file random, first word 0x" + Integer.toHexString(java.nio.ByteBuffer.wrap(junk)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0));
            }
            case 10 -> {
                long used = JournalFiles.usedLength(cycle);
                long page = (used - 1) & ~4095L;
                try (RandomAccessFile f = new RandomAccessFile(cycle.toFile(), "rw")) {
                    f.seek(page);
                    f.write(new byte[(int) (used - page)]);
                }
                return "tail page zeroed from " + page;
            }
            case 11 -> {
                Files.delete(cycle);
                return "cycle file missing";
            }
            default -> {
                // the byte-level kinds below
            }
        }
        Path target = kind == 5 ? JournalFiles.cycleFiles(dir.resolve("close-index")).get(0)
                : kind == 6 ? dir.resolve("metadata.cq4t") : cycle;
        long used = Math.max(1, JournalFiles.usedLength(target));
        long dataStart = Math.max(0, used - 16_000);
        long at = dataStart + (long) (random.nextDouble() * (used - dataStart));
        try (RandomAccessFile f = new RandomAccessFile(target.toFile(), "rw")) {
            switch (kind) {
                case 0 -> { // flip a few bits
                    int n = 1 + random.nextInt(8);
                    for (int i = 0; i < n; i++) {
                        long p = dataStart + (long) (random.nextDouble() * (used - dataStart));
                        f.seek(p);
                        int b = f.read();
                        f.seek(p);
                        f.write(b ^ (1 << random.nextInt(8)));
                    }
                    return "flip x" + n + " near " + at;
                }
                case 1 -> { // overwrite a block with random bytes
                    byte[] junk = new byte[1 + random.nextInt(512)];
                    random.nextBytes(junk);
                    f.seek(at);
                    f.write(junk);
                    return "random block " + junk.length + " at " + at;
                }
                case 2 -> { // zero a block
                    f.seek(at);
                    f.write(new byte[1 + random.nextInt(512)]);
                    return "zero block at " + at;
                }
                case 3 -> { // cut the file short
                    f.setLength(at);
                    return "truncate at " + at;
                }
                case 4 -> { // 0xFF run, which looks like a huge length or a not-complete header
                    byte[] ff = new byte[4 + random.nextInt(16)];
                    java.util.Arrays.fill(ff, (byte) 0xFF);
                    f.seek(at);
                    f.write(ff);
                    return "0xFF run at " + at;
                }
                case 5 -> {
                    byte[] junk = new byte[64];
                    random.nextBytes(junk);
                    f.seek(at);
                    f.write(junk);
                    return "garbled close index at " + at;
                }
                default -> {
                    byte[] junk = new byte[64];
                    random.nextBytes(junk);
                    f.seek((long) (random.nextDouble() * Math.max(1, f.length() - 64)));
                    f.write(junk);
                    return "garbled metadata";
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
