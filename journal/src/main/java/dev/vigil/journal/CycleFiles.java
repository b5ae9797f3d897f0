package dev.vigil.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;


/**
 * The cycle files of a journal, checked with plain file reads before Chronicle maps any of them
 * (Chronicle waits on a file whose first header is unwritten or incomplete, and faults past the end
 * of a cut file). Per file: does it start with a Chronicle store header, and where and at which
 * sequence its store says the last event was written; per journal: which cycles that events were
 * written to (the close index's cycle entries and close spans) have no file.
 *
 * <p>The store header is the metadata excerpt at byte 0, a binary wire document beginning
 * {@code header: !SCQStore}; its {@code writePosition} field is an int64 array whose first value is
 * the position of the last data excerpt's header and whose second holds that excerpt's sequence
 * number in its low 32 bits and the position again in its high 32 bits.
 */
public final class CycleFiles {
    /** {@code b9 06 "header" b6 08 "SCQStore"}: the start of every store header this Chronicle version writes. */
    private static final byte[] STORE_HEADER_START = concat(new byte[] {(byte) 0xb9, 6},
            "header".getBytes(StandardCharsets.US_ASCII), new byte[] {(byte) 0xb6, 8},
            "SCQStore".getBytes(StandardCharsets.US_ASCII));
    private static final byte[] WRITE_POSITION_FIELD = concat(new byte[] {(byte) 0xcd},
            "writePosition".getBytes(StandardCharsets.US_ASCII));
    private static final int HEADER_READ_BYTES = 512;
    private static final int PADDING32 = 0x8e;
    private static final int PADDING = 0x8f;
    private static final int I64_ARRAY = 0x8d;

    private CycleFiles() {
    }

    /**
     * One cycle file as found on disk.
     *
     * @param problem      why no event can be read from it (missing, empty, no store header), or null
     * @param lastPosition byte position of the last data excerpt's header per its store, -1 for none
     * @param lastSequence sequence number (in the cycle) of that excerpt, -1 for none
     */
    public record CycleFile(int cycle, Path file, long length, String problem, long lastPosition, long lastSequence) {
        public boolean readable() {
            return problem == null;
        }

        // equals and hashCode written out: a record's generated ones are bootstrapped through method handles on their
        // first call, ~25 classes spun at run time that no class-data archive of JDK 17 holds (a short command such as
        // `vigil-replay show` compares its cycle files once: bin/vigil-bench replay).
        @Override
        public boolean equals(Object o) {
            return o instanceof CycleFile f && cycle == f.cycle && length == f.length && lastPosition == f.lastPosition
                    && lastSequence == f.lastSequence && java.util.Objects.equals(file, f.file)
                    && java.util.Objects.equals(problem, f.problem);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(cycle, file, length, problem, lastPosition, lastSequence);
        }
    }

    /**
     * Every cycle of the journal in {@code dir} in cycle order: each file found, plus each cycle
     * that {@code cyclesWritten} names and that has no file (as a missing one).
     */
    public static List<CycleFile> inspect(Path dir, Set<Integer> cyclesWritten) {
        TreeMap<Integer, CycleFile> byCycle = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(SUFFIX)).toList()) {
                Integer cycle = cycleOf(f.getFileName().toString());
                if (cycle != null) {
                    byCycle.put(cycle, inspectFile(cycle, f));
                }
            }
        } catch (IOException e) {
            throw new JournalException("cannot list journal dir=" + dir + ": " + JournalException.plain(e), e);
        }
        if (!byCycle.isEmpty()) {
            // The newest file may be one a live writer is creating right now (empty, or its store header not yet
            // complete: Chronicle marks it 0x80000000 while it writes it): give it the time a writer needs.
            Map.Entry<Integer, CycleFile> newest = byCycle.lastEntry();
            long deadline = System.nanoTime() + BEING_CREATED_WAIT_NANOS;
            CycleFile f = newest.getValue();
            while (mayBeBeingCreated(f) && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
                f = inspectFile(f.cycle(), f.file());
            }
            byCycle.put(newest.getKey(), f);
        }
        for (int cycle : cyclesWritten) {
            byCycle.computeIfAbsent(cycle, c -> {
                Path f = dir.resolve(fileName(c));
                return new CycleFile(c, f, -1, "is missing, but the close index records events written to it", -1, -1);
            });
        }
        return new ArrayList<>(byCycle.values());
    }

    /** The cycle files of a journal as {@link #ofJournal} found them, and what its close index says of them. */
    public record OfJournal(List<CycleFile> files, CloseIndex.Written index) {
    }

    /**
     * Every cycle of the journal in {@code dir} ({@link #inspect}, the cycles its close index records included), and
     * each file holding events that the close index should record and does not marked unreadable: a cycle file of
     * another journal, copied or renamed in (its events and closes would otherwise be read as this journal's). Only
     * when the index is whole and records cycles ({@link CloseIndex.Written#mustRecord}): a damaged index, or one of a
     * writer from before cycle entries, refuses no file. The newest file may be one a live writer has just begun (it
     * records a cycle right after the cycle's first event): the index is read again for it, and a newest file of one
     * event (a writer killed between that event and its entry) is let through.
     */
    public static OfJournal ofJournal(Path dir) {
        CloseIndex.Written written = CloseIndex.cyclesWritten(dir);
        List<CycleFile> files = inspect(dir, written.cycles());
        List<CycleFile> out = new ArrayList<>(files.size());
        CloseIndex.Written now = written;
        boolean readAgain = false;
        for (int i = 0; i < files.size(); i++) {
            CycleFile f = files.get(i);
            if (!f.readable() || f.lastSequence() < 0 || !now.mustRecord(f.cycle()) || now.cycles().contains(f.cycle())) {
                out.add(f);
                continue;
            }
            if (i == files.size() - 1) {
                if (!readAgain) {
                    now = CloseIndex.cyclesWritten(dir);
                    readAgain = true;
                }
                if (f.lastSequence() == 0 || !now.mustRecord(f.cycle()) || now.cycles().contains(f.cycle())) {
                    out.add(f);
                    continue;
                }
            }
            out.add(new CycleFile(f.cycle(), f.file(), f.length(), "holds " + (f.lastSequence() + 1)
                    + " events, but the close index records no event written to it: a cycle file of another journal,"
                    + " not read", f.lastPosition(), f.lastSequence()));
        }
        return new OfJournal(out, written);
    }

    static final String SUFFIX = ".cq4";

    /** How long the newest cycle file may look unfinished before it counts as damaged (a writer needs microseconds). */
    static final long BEING_CREATED_WAIT_NANOS = 500_000_000L;

    /**
     * Empty, zeros at the start, Chronicle's "header being written" word, or a header whose writePosition is not
     * there yet: what a file being created looks like (each seen from a reader opened as two writers started).
     */
    private static boolean mayBeBeingCreated(CycleFile f) {
        return f.length() >= 0 && f.problem() != null && (f.length() < 8 || f.problem().startsWith("starts with zeros")
                || f.problem().contains("(first word=0x80000000)") || f.problem().contains("no readable writePosition"));
    }

    /**
     * The file name of a cycle of the journal's roll cycle ({@link JournalDirectory#ROLL_CYCLE}: Chronicle's FAST_DAILY,
     * one cycle a UTC day from 1970-01-01, named {@code yyyyMMdd'F'}), e.g. {@code 20261202F.cq4}. The day is worked out
     * with integer arithmetic (the civil-from-days algorithm of H. Hinnant's "chrono-compatible low-level date
     * algorithms"): java.time's DateTimeFormatter, which did it before, cost a short replay command ~70 classes and
     * ~20 ms of its CPU. CycleFileNamesTest checks both directions against Chronicle's own format, day by day.
     */
    public static String fileName(int cycle) {
        long z = cycle + DAYS_0000_03_01_TO_1970_01_01;
        long era = Math.floorDiv(z, DAYS_PER_ERA);
        long dayOfEra = z - era * DAYS_PER_ERA;
        long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
        long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100); // the year begins on March 1
        long monthFromMarch = (5 * dayOfYear + 2) / 153;
        long day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1;
        long month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
        long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
        return String.valueOf(year * 10_000 + month * 100 + day) + DAY_SUFFIX + SUFFIX;
    }

    /** The cycle a file name stands for ({@link #fileName}'s inverse), or null when it is not the name of one. */
    static Integer cycleOf(String name) {
        int stem = name.length() - DAY_SUFFIX.length() - SUFFIX.length();
        if (stem != 8 || !name.endsWith(DAY_SUFFIX + SUFFIX)) {
            return null;
        }
        int date = 0;
        for (int i = 0; i < stem; i++) {
            char c = name.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
            date = date * 10 + (c - '0');
        }
        int year = date / 10_000;
        int month = date / 100 % 100;
        int day = date % 100;
        if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
            return null;
        }
        long y = year - (month <= 2 ? 1 : 0);
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return (int) (era * DAYS_PER_ERA + dayOfEra - DAYS_0000_03_01_TO_1970_01_01);
    }

    private static int daysIn(int year, int month) {
        if (month == 2) {
            return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28;
        }
        return month == 4 || month == 6 || month == 9 || month == 11 ? 30 : 31;
    }

    /** What follows the date in a cycle file's name ({@code yyyyMMdd'F'}). */
    private static final String DAY_SUFFIX = "F";
    /** Days in 400 years of the Gregorian calendar, and from 0000-03-01 to 1970-01-01. */
    private static final long DAYS_PER_ERA = 146_097;
    private static final long DAYS_0000_03_01_TO_1970_01_01 = 719_468;

    static CycleFile inspectFile(int cycle, Path file) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long length = ch.size();
            if (length < 8) {
                return new CycleFile(cycle, file, length, "is " + length + " bytes long, too short for its store header", -1, -1);
            }
            ByteBuffer b = ByteBuffer.allocate((int) Math.min(length, HEADER_READ_BYTES)).order(ByteOrder.LITTLE_ENDIAN);
            while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                // read the head of the file
            }
            int first = b.getInt(0);
            int bodyLength = first & 0x3FFFFFFF;
            boolean metadata = (first & 0x40000000) != 0;
            boolean complete = (first & 0x80000000) == 0;
            if (first == 0) {
                return new CycleFile(cycle, file, length, "starts with zeros where its store header belongs", -1, -1);
            }
            if (!metadata || !complete || bodyLength < STORE_HEADER_START.length || 4L + bodyLength > length) {
                return new CycleFile(cycle, file, length, "does not start with a store header (first word=0x"
                        + Integer.toHexString(first) + ")", -1, -1);
            }
            for (int i = 0; i < STORE_HEADER_START.length; i++) {
                if (b.get(4 + i) != STORE_HEADER_START[i]) {
                    return new CycleFile(cycle, file, length, "has a garbled store header (byte " + (4 + i) + ")", -1, -1);
                }
            }
            long[] written = writePosition(b, 4 + Math.min(bodyLength, b.limit() - 4));
            if (written == null) {
                return new CycleFile(cycle, file, length, "has a garbled store header (no readable writePosition)", -1, -1);
            }
            return new CycleFile(cycle, file, length, null, written[0], written[1]);
        } catch (IOException e) {
            return new CycleFile(cycle, file, -1, "cannot be read: " + JournalException.plain(e), -1, -1);
        }
    }

    /** {position, sequence} of the last data excerpt per the store header; {-1, -1} for none; null when unreadable. */
    private static long[] writePosition(ByteBuffer b, int end) {
        int at = indexOf(b, WRITE_POSITION_FIELD, end);
        if (at < 0) {
            return null;
        }
        int p = at + WRITE_POSITION_FIELD.length;
        while (p < end) {
            int code = b.get(p) & 0xFF;
            if (code == PADDING) {
                p++;
            } else if (code == PADDING32 && p + 5 <= end) {
                p += 5 + b.getInt(p + 1);
            } else {
                break;
            }
        }
        if (p + 1 + 16 > end || (b.get(p) & 0xFF) != I64_ARRAY) {
            return null;
        }
        long capacity = b.getLong(p + 1);
        long used = b.getLong(p + 9);
        if (capacity < 2 || used < 0 || used > capacity || p + 17 + 16 > end) {
            return null;
        }
        long position = b.getLong(p + 17);
        long sequenceAndPosition = b.getLong(p + 25);
        if (position <= 0 && sequenceAndPosition == 0) {
            return new long[] {-1, -1};
        }
        long pairPosition = sequenceAndPosition >>> 32;
        if (pairPosition == (position & 0xFFFFFFFFL)) {
            return new long[] {position, sequenceAndPosition & 0xFFFFFFFFL};
        }
        // The two values are two stores (the pair when the excerpt completes, then the position): a writer
        // killed between them, or read between them, leaves them apart. The pair is one word, so it is
        // whole; below 4 GB it names its position in full, and the reader checks against it.
        if (position < 0 || position > 0xFFFFFFFFL || pairPosition == 0) {
            return null;
        }
        return new long[] {pairPosition, sequenceAndPosition & 0xFFFFFFFFL};
    }

    private static int indexOf(ByteBuffer b, byte[] needle, int end) {
        outer:
        for (int i = 0; i + needle.length <= end; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (b.get(i + j) != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
