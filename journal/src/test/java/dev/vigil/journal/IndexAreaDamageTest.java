package dev.vigil.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import java.time.Duration;
import java.time.Instant;

import net.openhft.chronicle.core.time.SetTimeProvider;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damage in a cycle file's header or index area, where no event is (the store header, the index2index array, an index
 * array): every read either gives the undamaged answer, or names the damage by file and index. The reads: the whole
 * journal from its start, and from five indexes (the first event, both sides of the index spacing, inside the second
 * spacing, the last event). One bit is flipped per byte of the store header and of the index arrays' headers and used
 * entries, one byte at a time. Before, a flipped bit in an index entry moved a read from an index to another event
 * without a word.
 */
@Timeout(300)
class IndexAreaDamageTest {
    /** Events of one cycle: index entries at sequence 0, 256 and 512 (the roll cycle's spacing). */
    private static final int EVENTS = 600;

    @TempDir
    Path tmp;

    /** The answers a read gives: the whole journal, then the event at each index of {@link #FROM}, or its damage. */
    private static List<String> answers(Path dir, long[] from) {
        List<String> out = new ArrayList<>();
        String answer;
        try (JournalReader r = JournalReader.open(dir)) {
            StringBuilder all = new StringBuilder();
            r.fromStart().readAll((i, e) -> all.append(Long.toHexString(i)).append('=').append(e).append('\n') != null);
            answer = all.toString();
        } catch (JournalCorruptException damage) {
            answer = "DAMAGE " + damage.getMessage();
        } catch (Throwable other) { // Chronicle throws checked exceptions unchecked: a stack trace for the user
            answer = "THROWN " + other;
        }
        out.add(answer);
        for (long index : from) {
            try (JournalReader r = JournalReader.open(dir)) {
                answer = r.fromIndex(index) ? Long.toHexString(index) + "=" + r.next() : "absent " + Long.toHexString(index);
            } catch (JournalCorruptException damage) {
                answer = "DAMAGE " + damage.getMessage();
            } catch (Throwable other) {
                answer = "THROWN " + other;
            }
            out.add(answer);
        }
        return out;
    }

    /**
     * The bytes that steered reads wrong before (found by {@link #aFlippedBitInAnyByteOfTheHeaderOrIndexArea}): the
     * store header's length, indexCount and indexSpacing, an assertion inside Chronicle, the first index entries.
     */
    @Test
    void aFlippedBitWhereAReadWentWrongBeforeGivesTheUndamagedAnswerOrIsNamed() throws IOException {
        flipAndRead(at -> at == 2 || at == 71 || at == 120 || at == 136 || at == 137 || at >= 33040 && at <= 33050);
    }

    /** One bit of every byte of the store header and of the index arrays' headers and first entries (~350 flips). */
    @Test
    @Tag("slow")
    void aFlippedBitInAnyByteOfTheHeaderOrIndexArea() throws IOException {
        flipAndRead(at -> true);
    }

    private void flipAndRead(java.util.function.LongPredicate flipped) throws IOException {
        Path dir = tmp.resolve("journal");
        // the damaged day is not the newest file: a newest file that looks unfinished is given 500 ms per read to be a
        // live writer's new file, which would make this test take minutes
        SetTimeProvider clock = new SetTimeProvider(Instant.parse("2026-12-03T12:00:00Z"));
        try (JournalWriter w = JournalWriter.open(dir, 1024, Duration.ofSeconds(5), clock)) {
            for (int i = 0; i < EVENTS; i++) {
                w.append(SampleEvents.sample(EventType.values()[i % EventType.values().length], i));
            }
            w.flush();
            clock.currentTimeMillis(Instant.parse("2026-12-04T12:00:00Z").toEpochMilli());
            w.append(SampleEvents.sample(EventType.POOL_STARTED, EVENTS));
        }
        Path cycle = dir.resolve("20261203F.cq4");
        long first;
        try (JournalReader r = JournalReader.open(dir)) {
            r.fromStart().next();
            first = r.lastIndex();
        }
        long[] from = {first + 255, first + 300, first + EVENTS - 1};
        List<String> undamaged = answers(dir, from);
        assertTrue(undamaged.stream().noneMatch(a -> a.startsWith("DAMAGE") || a.startsWith("absent")), undamaged.toString());

        long[] bodies = CycleFileBytes.bodyPositions(cycle);
        List<long[]> ranges = new ArrayList<>(); // [from, to) of bytes where no event is
        ranges.add(new long[] {0, storeHeaderEnd(cycle)}); // the store header
        for (long at : metadataExcerpts(cycle, bodies[bodies.length - 1])) {
            ranges.add(new long[] {at, at + 4 + 40 + 8 * 4}); // its header, name, array header and first entries
        }
        int flips = 0;
        int named = 0;
        List<String> wrong = new ArrayList<>();
        for (long[] range : ranges) {
            for (long at = range[0]; at < range[1]; at++) {
                if (!flipped.test(at)) {
                    continue;
                }
                int bit = 1 << (int) (at % 8);
                CycleFileBytes.flip(cycle, at, bit);
                try {
                    List<String> got = answers(dir, from);
                    flips++;
                    for (int i = 0; i < got.size(); i++) {
                        if (got.get(i).startsWith("DAMAGE")) {
                            named++;
                            if (!got.get(i).contains("file=" + cycle.getFileName())) {
                                wrong.add("byte " + at + " bit " + bit + " read " + i + ": damage without its file: " + got.get(i));
                            }
                        } else if (!got.get(i).equals(undamaged.get(i))) {
                            wrong.add("byte " + at + " bit " + bit + " read " + i + ": " + first(got.get(i)) + " instead of "
                                    + first(undamaged.get(i)));
                        }
                    }
                } finally {
                    CycleFileBytes.flip(cycle, at, bit);
                }
            }
        }
        System.out.println("IndexAreaDamageTest: " + flips + " flips, " + named + " reads named the damage, "
                + wrong.size() + " wrong");
        wrong.stream().limit(40).forEach(System.out::println);
        assertEquals(List.of(), wrong.subList(0, Math.min(20, wrong.size())), wrong.size() + " wrong answers of " + flips + " flips");
        assertEquals(undamaged, answers(dir, from), "restored");
    }

    private static String first(String answer) {
        int nl = answer.indexOf('\n');
        String line = nl < 0 ? answer : answer.substring(0, nl) + " ... (" + answer.lines().count() + " lines)";
        return line.length() > 300 ? line.substring(0, 300) + "..." : line;
    }

    private static long storeHeaderEnd(Path cycle) throws IOException {
        try (FileChannel ch = FileChannel.open(cycle, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(b, 0);
            return 4 + (b.getInt(0) & 0x3FFFFFFF);
        }
    }

    /** Header positions of the metadata excerpts after the store header, up to {@code end}. */
    private static List<Long> metadataExcerpts(Path cycle, long end) throws IOException {
        List<Long> out = new ArrayList<>();
        try (FileChannel ch = FileChannel.open(cycle, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            long p = 0;
            boolean header = true;
            while (p <= end) {
                b.clear();
                ch.read(b, p);
                int word = b.getInt(0);
                if (word == 0) {
                    break;
                }
                if ((word & 0x40000000) != 0 && !header) {
                    out.add(p);
                }
                header = false;
                p = (p + 4 + (word & 0x3FFFFFFF) + 3) & ~3L;
            }
        }
        return out;
    }
}
