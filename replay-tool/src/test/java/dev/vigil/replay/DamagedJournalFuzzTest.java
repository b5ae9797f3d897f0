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
 * Many randomly damaged copies of a real journal (bytes flipped, blocks overwritten or zeroed,
 * files cut short, the close index or the queue metadata garbled): every command answers each
 * within a bound, either normally or with one ERR: line and exit code 2, never a stack trace.
 */
@Timeout(value = 170, unit = TimeUnit.SECONDS)
class DamagedJournalFuzzTest {
    private static final int COPIES = 200;
    private static final Duration BOUND_PER_COMMAND = Duration.ofSeconds(20);

    @TempDir
    Path tmp;

    @Test
    void everyDamagedCopyIsAnsweredWithinABound() throws IOException {
        Path full = tmp.resolve("full");
        Scenarios.overlapping(full);
        Path base = tmp.resolve("base");
        JournalFiles.copyCompact(full, base);
        long seed = Long.getLong("vigil.replay.fuzzSeed", System.nanoTime());
        Random random = new Random(seed);
        int refused = 0;
        int answered = 0;
        List<String> kinds = new ArrayList<>();
        for (int copy = 0; copy < COPIES; copy++) {
            Path dir = tmp.resolve("copy");
            deleteTree(dir);
            JournalFiles.copyCompact(base, dir);
            String damage = damage(dir, random);
            kinds.add(damage);
            String[][] commands = {{"closes", dir.toString()}, {"audit", dir.toString()}, {"stats", dir.toString()},
                {"show", dir.toString(), Integer.toString(1 + random.nextInt(3))}, {"export", dir.toString()}};
            for (int k = 0; k < 2; k++) { // two of the five commands per copy keeps the run short
                String[] args = commands[random.nextInt(commands.length)];
                String what = "seed=" + seed + " copy=" + copy + " damage=" + damage + " command=" + String.join(" ", args);
                CliRun run = assertTimeoutPreemptively(BOUND_PER_COMMAND, () -> CliRun.of(args), what);
                boolean ok = (run.exit() == 0 || run.exit() == 1) && run.err().isEmpty();
                assertTrue(ok || run.isOneErrLine(), () -> what + "\n" + run);
                if (ok) {
                    answered++;
                } else {
                    refused++;
                }
            }
        }
        System.out.printf("fuzz seed=%d: %d commands answered, %d refused with one ERR: line%n", seed, answered, refused);
        assertTrue(refused > 0, "some damage must be noticed");
    }

    /** Damages one journal copy in place; returns what was done. */
    private static String damage(Path dir, Random random) throws IOException {
        Path cycle = JournalFiles.cycleFiles(dir).get(0);
        int kind = random.nextInt(7);
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
