package dev.vigil.mailbox;

import static dev.vigil.mailbox.MailboxDescriptor.MAILBOX_ALIGNMENT;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.mailbox.internal.FileMappings;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * All mailboxes of an orchestrator in one persisted Chronicle Map: key = {@link MailboxId}, value = a
 * fixed-size record holding one 64-byte-aligned mailbox ({@link MailboxDescriptor}). Fixed-size values never
 * move while their key exists, so each mailbox has a stable file offset that children map directly.
 *
 * <p>Rules this class relies on (DESIGN section 3): the map is built with {@code checksumEntries(false)}
 * because every protocol write bypasses the map API (recovery would otherwise drop those entries); the map
 * API only creates and removes entries, all words are accessed through {@link MappedMailbox}; a key is
 * removed ({@link #release}) only after its child has been reaped.
 *
 * <p>A release frees the mailbox at once for the orchestrator (its handle is gone, {@link #lookup} and {@link #ids} no
 * longer see it) but leaves its record in the map until {@link #removeReleased}: the close engine calls it once no
 * close has run for a millisecond, so the map's remove, a few hundred microseconds of Chronicle code that a close
 * runs only once per child (seldom compiled), is not on the way from a close's last reap to its report nor on its
 * caller's way back. Every allocation removes what is
 * pending first (the same key is allocated again by the pool's next cycle, and a full map has its room back), and so
 * does {@link #close}.
 */
public final class MailboxStore implements AutoCloseable {
    private static final int PARENT_PID = (int) ProcessHandle.current().pid();

    private final Path mapFile;
    private final ChronicleMap<CharSequence, byte[]> map;
    private final FileMappings mappings;
    private final Map<MailboxId, MailboxHandle> handles = new ConcurrentHashMap<>();
    /** Released, their records still in the map until {@link #removeReleased}. Guarded by this. */
    private final Set<MailboxId> releasedRecords = new LinkedHashSet<>();
    private final List<String> recoveryNotes;
    private final Path ownerMarker;
    private final RingSettings ring;
    /** Value size: one mailbox plus the slack needed to start it on a 64-byte file offset. */
    private final int valueLength;
    /** The map file as opened: the file the mappings are of, even once its name points elsewhere. */
    private final FileChannel file;
    private long restores;
    private String lastRestore;
    /** The longest the map file has been (it grows with extra tiers): what {@link #restoreCutLength} restores. */
    private long longestLength;

    private MailboxStore(Path mapFile, ChronicleMap<CharSequence, byte[]> map, List<String> recoveryNotes, Path ownerMarker,
            RingSettings ring) throws IOException {
        this.mapFile = mapFile;
        this.ring = ring;
        this.valueLength = valueLength(ring);
        this.map = map;
        this.ownerMarker = ownerMarker;
        this.mappings = new FileMappings(mapFile);
        this.recoveryNotes = List.copyOf(recoveryNotes);
        this.file = FileChannel.open(mapFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.longestLength = file.size();
    }

    /**
     * How many times {@link #restoreCutLength} restored the file, and what it said the last time: a reader of mailbox
     * words that ran while the file was cut (a start's readiness poll) cannot trust what it read, whichever thread
     * met the fault and restored the file.
     */
    public synchronized Restores restores() {
        return new Restores(restores, lastRestore);
    }

    /** {@link #restores()}: the count of restores and the last one's words (null before any). */
    public record Restores(long count, String last) {
    }

    /**
     * Null when the map file is as long as it has been; else restores that length and says what happened, in one line.
     * Every child may write the file, and one that truncates it (ftruncate, or an open with O_TRUNC such as Python's
     * {@code open(path, "w")}) makes each later access to the cut part a SIGBUS, in this JVM an InternalError: before,
     * the close in progress aborted on it, then the orchestrator's shutdown close too, and no reap of that pool was
     * journaled (audit: POOL_NOT_CLOSED). Restored, the cut part reads as zeros (IDLE, no shutdown published), so a
     * close can publish its shutdown and reap. Cheap (one fstat): called at each close and after a memory fault.
     */
    public synchronized String restoreCutLength() {
        try {
            long now = file.size();
            if (now >= longestLength) {
                longestLength = now;
                return null;
            }
            file.write(java.nio.ByteBuffer.wrap(new byte[1]), longestLength - 1); // extends the file: a hole reads as 0
            lastRestore = "mailbox file=" + mapFile + " was cut to " + now + " bytes while mapped (" + longestLength
                    + " bytes): something truncated it (a child opening it with O_TRUNC?); its length is restored, the cut"
                    + " part's words read as 0";
            restores++;
            return lastRestore;
        } catch (IOException e) {
            return "mailbox file=" + mapFile + " cannot be checked: " + dev.vigil.journal.JournalException.plain(e);
        }
    }

    /**
     * Creates the map file, or reopens an existing one. While a store is open, a marker file
     * {@code <mapFile>.owner} holds its pid; finding the marker at open means the previous owner died without
     * closing, so the map is opened through Chronicle's recovery (which resets locks a dead process held;
     * with entry checksums off, every value survives as it was). {@code maxMailboxes} sizes the map; a fuller
     * map grows into extra tiers up to 4x. One orchestrator process owns a store at a time.
     */
    public static MailboxStore createOrOpen(Path mapFile, int maxMailboxes) {
        return createOrOpen(mapFile, maxMailboxes, RingSettings.defaults());
    }

    /** {@link #createOrOpen(Path, int)} with mailboxes whose rings follow {@code ring} (its capacity sizes every value). */
    public static MailboxStore createOrOpen(Path mapFile, int maxMailboxes, RingSettings ring) {
        if (maxMailboxes <= 0) {
            throw new MailboxException("maxMailboxes must be positive: maxMailboxes=" + maxMailboxes);
        }
        List<String> notes = new ArrayList<>();
        Path marker = mapFile.resolveSibling(mapFile.getFileName() + ".owner");
        boolean created = !Files.exists(mapFile);
        boolean markerFound = Files.exists(marker);
        ChronicleMap<CharSequence, byte[]> map = null;
        try {
            Path parent = mapFile.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            boolean exists = Files.exists(mapFile) && Files.size(mapFile) > 0;
            boolean crashed = exists && Files.exists(marker);
            if (crashed) {
                notes.add("previous owner did not close the store: " + Files.readString(marker).trim());
            }
            // Taken before anything here opens the map (an open may write to it).
            boolean unchangedSinceItsCleanClose = exists && !crashed && sealed(mapFile);
            var builder = ChronicleMap.of(CharSequence.class, byte[].class)
                    .name("vigil-mailboxes")
                    .entries(Math.max(64, maxMailboxes))
                    .averageKeySize(48)
                    .constantValueSizeBySample(new byte[valueLength(ring)])
                    .maxBloatFactor(4.0)
                    .checksumEntries(false);
            if (exists) { // Chronicle checks the header's checksum and the file's length at a plain open, not at recovery
                refuseAnUnreadyHeader(mapFile);
                try {
                    builder.createPersistedTo(mapFile.toFile()).close();
                } catch (java.nio.file.FileSystemException cannotOpen) { // not the content: rights, a full disk, ...
                    throw cannotOpen;
                } catch (IOException | RuntimeException refused) {
                    throw new MailboxException(damaged(mapFile, dev.vigil.journal.JournalException.plain(refused)), refused);
                }
            }
            if (exists && !crashed && !unchangedSinceItsCleanClose) {
                refuseDamagedSegments(builder, mapFile, notes);
            }
            map = crashed
                    ? builder.recoverPersistedTo(mapFile.toFile(), true, corruption -> notes.add(corruption.message()))
                    : builder.createPersistedTo(mapFile.toFile());
            Files.writeString(marker, "pid=" + PARENT_PID + "\n");
            return new MailboxStore(mapFile.toAbsolutePath(), map, notes, marker, ring);
        } catch (IOException | RuntimeException e) {
            String full = dev.vigil.journal.JournalException.noSpaceLeft(mapFile, e);
            if (map != null) { // opened, then its owner marker could not be written (a full disk): unmapped now, not
                map.close();   // by Chronicle's cleaner at some later GC, which logs "is not closed manually"
            }
            if (created || !markerFound) { // a marker this call wrote (or left empty) makes the next open a crash recovery
                deleteQuietly(marker);
            }
            if (created) { // what this call made of a map it could not create: on a full disk, a sparse file of ~13 MB
                full = full == null ? null : full + needs(mapFile, maxMailboxes);
                deleteQuietly(mapFile);
            }
            if (full == null && e instanceof RuntimeException r) {
                throw r;
            }
            throw new MailboxException("cannot open mailbox store: file=" + mapFile + " maxMailboxes=" + maxMailboxes + ": "
                    + inWords(full, e), e);
        }
    }

    /**
     * How much a new map needed against what its file system has free, from the length the map's file was given before
     * its pages could not be had: {@code : a map of 256 mailboxes takes 13971456 bytes, 8388608 bytes free there}; empty when
     * unknown. A full tmpfs said only "no space left", and the user could not tell how much room to make.
     */
    private static String needs(Path mapFile, int maxMailboxes) {
        try {
            long length = Files.size(mapFile); // 0 when not even its header could be written
            return (length > 0 ? ": a map of " + maxMailboxes + " mailboxes takes " + length + " bytes," : ":") + " "
                    + Files.getFileStore(mapFile).getUsableSpace() + " bytes free there";
        } catch (IOException | RuntimeException unknown) {
            return "";
        }
    }

    /** What {@code t} failed of, in words: {@code full} (the full file system's words) when not null, else plain. */
    private static String inWords(String full, Throwable t) {
        return full != null ? full : dev.vigil.journal.JournalException.plain(t);
    }

    /** Chronicle Map's header: an 8-byte checksum, then a 4-byte size word whose ready bit its creator sets last. */
    private static final int HEADER_PREFIX = 12;

    /**
     * A header whose size word is 0 (a zeroed file, or one cut inside its header) would have Chronicle wait a minute
     * for a creator to finish writing it, then fail without saying the file is damaged.
     */
    private static void refuseAnUnreadyHeader(Path mapFile) throws IOException {
        java.nio.ByteBuffer prefix = java.nio.ByteBuffer.allocate(HEADER_PREFIX).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        try (FileChannel in = FileChannel.open(mapFile, StandardOpenOption.READ)) {
            while (prefix.hasRemaining() && in.read(prefix) >= 0) {
                // reads the prefix, or what there is of it
            }
        }
        if (prefix.position() < HEADER_PREFIX || prefix.getInt(8) == 0) {
            throw new MailboxException(damaged(mapFile, "no Chronicle Map header (its first " + HEADER_PREFIX
                    + " bytes are " + (prefix.position() < HEADER_PREFIX ? "missing" : "zero") + ")"));
        }
    }

    /**
     * Chronicle's recovery checks every segment's entries (a plain open trusts their offsets: bytes written into a
     * segment crashed the JVM at the first read) but repairs what it checks: run on a copy, so a refused file stays as
     * it was and the next start refuses it too.
     */
    private static void refuseDamagedSegments(net.openhft.chronicle.map.ChronicleMapBuilder<CharSequence, byte[]> builder,
            Path mapFile, List<String> notes) throws IOException {
        Path copy = mapFile.resolveSibling(mapFile.getFileName() + ".check");
        List<String> damage = new ArrayList<>();
        try {
            try {
                Files.copy(mapFile, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException noRoom) { // a full disk (or a read-only dir) has no room for the copy
                notes.add("segments not checked (no copy " + copy + ": " // the map itself still opens, unchecked
                        + inWords(dev.vigil.journal.JournalException.noSpaceLeft(copy, noRoom), noRoom) + ")");
                return;
            }
            builder.recoverPersistedTo(copy.toFile(), false, corruption -> damage.add(corruption.message())).close();
        } finally {
            Files.deleteIfExists(copy);
        }
        if (!damage.isEmpty()) {
            throw new MailboxException(damaged(mapFile, damage.size() + " damaged entr" + (damage.size() == 1 ? "y" : "ies")
                    + " though its last owner closed it, first: " + damage.get(0)));
        }
    }

    /**
     * {@code <mapFile>.closed}: the map file as its last clean close left it, no mailbox in it and nothing mapping it
     * any more: device, inode, size, and its modification and change times (nanoseconds). A start that finds the file
     * still so opens it without {@link #refuseDamagedSegments}: that check copies the whole map (~14 MB) and runs
     * Chronicle's recovery over the copy, ~50 ms of a start on an existing journal dir (bin/vigil run, 2 cores), and a
     * file unchanged since the close that checked it in has nothing new to find. Any write to the file since, through a
     * mapping or not, moves its change time, which no process can set back (a damage that also restores the
     * modification time is still seen: DamagedMailboxMapTest); so does a file put in its place. Not seen: a write in the
     * same clock tick (1-4 ms) as the file's last change before the close; the seal is written after the close, when no
     * mailbox is left in the map and so no child of this store can still write to it.
     */
    private static Path sealFile(Path mapFile) {
        return mapFile.resolveSibling(mapFile.getFileName() + ".closed");
    }

    /** The seal of the map file as it is now: one line. */
    private static String sealOf(Path mapFile) throws IOException {
        Map<String, Object> a = Files.readAttributes(mapFile, "unix:dev,ino,size,lastModifiedTime,ctime");
        return "dev=" + a.get("dev") + " ino=" + a.get("ino") + " size=" + a.get("size")
                + " mtime=" + ((java.nio.file.attribute.FileTime) a.get("lastModifiedTime")).to(java.util.concurrent.TimeUnit.NANOSECONDS)
                + " ctime=" + ((java.nio.file.attribute.FileTime) a.get("ctime")).to(java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    /** Whether the map file is as its last clean close sealed it ({@link #sealFile}); false when it cannot be told. */
    private static boolean sealed(Path mapFile) {
        try {
            return Files.readString(sealFile(mapFile)).strip().equals(sealOf(mapFile));
        } catch (IOException | RuntimeException cannotTell) { // no seal (a crash, a kept child, a new map), or unreadable
            return false;
        }
    }

    /**
     * Seals the closed map file when {@code empty}; otherwise (or when the seal cannot be written) removes an earlier
     * seal, which could then no longer vouch for the file. Best effort: without a seal the next start checks in full.
     */
    private static void seal(Path mapFile, boolean empty) {
        Path seal = sealFile(mapFile);
        try {
            if (empty) {
                Files.writeString(seal, sealOf(mapFile) + "\n");
                return;
            }
        } catch (IOException | RuntimeException cannotSeal) {
            // a full disk, say: the next start checks in full
        }
        deleteQuietly(seal);
    }

    /** One line: the damaged file, what is wrong with it, and what to do. */
    private static String damaged(Path mapFile, String what) {
        return "mailbox map file=" + mapFile + " is damaged: " + what + ". Once no process maps it (`fuser -v " + mapFile
                + "`; a child of an earlier run still alive: end it), move it aside or remove it: the next run creates a"
                + " new map";
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException left) {
            // nothing more to do: the start failed already, and says why
        }
    }

    private static int valueLength(RingSettings ring) {
        return ring.mailboxLength() + MAILBOX_ALIGNMENT;
    }

    public Path mapFile() {
        return mapFile;
    }

    /** The ring settings every mailbox of this store is formatted with. */
    public RingSettings ringSettings() {
        return ring;
    }

    /**
     * Why and how this store was recovered when it reopened a file whose owner died; after a clean close empty, or the
     * one note that the disk had no room to copy the map for its segment check (opened unchecked).
     */
    public List<String> recoveryNotes() {
        return recoveryNotes;
    }

    /** Creates the mailbox of a new child: a fresh record (IDLE, seq 0, shutdown word 0) in {@code mode}. */
    public synchronized MailboxHandle allocate(MailboxId id, ProtocolMode mode) {
        removeReleased();
        String key = id.key();
        byte[] previous;
        try {
            previous = map.putIfAbsent(key, new byte[valueLength]);
        } catch (IllegalStateException full) { // Chronicle: no extra segment tier left
            throw new MailboxException("mailbox map full: " + id + " allocated=" + map.size() + " file=" + mapFile
                    + " (size the map for every child at once: Orchestrator.Builder.maxMailboxes; it holds up to about 4x that)"
                    + " error=" + full.getMessage(), full);
        }
        if (previous != null) {
            throw new MailboxException("mailbox already allocated: " + id);
        }
        long offset = mailboxOffset(id);
        MappedMailbox mailbox = MappedMailbox.map(mapFile, offset, ring.capacity());
        mailbox.format(mode, PARENT_PID, MonotonicClock.nanos(), ring.writerWait().toNanos());
        verifySameMemory(id, mailbox);
        MailboxHandle handle = new MailboxHandle(id, mode, mapFile, mailbox);
        handles.put(id, handle);
        try {
            longestLength = Math.max(longestLength, file.size()); // a map that grew a tier
        } catch (IOException e) {
            // known at the next restoreCutLength
        }
        return handle;
    }

    /** The handle of an allocated mailbox (after a reopen, rebuilt from the file), or empty. */
    public Optional<MailboxHandle> lookup(MailboxId id) {
        MailboxHandle cached = handles.get(id);
        if (cached != null) {
            return Optional.of(cached);
        }
        synchronized (this) {
            if (releasedRecords.contains(id) || !map.containsKey(id.key())) {
                return Optional.empty();
            }
            MappedMailbox mailbox = MappedMailbox.map(mapFile, mailboxOffset(id));
            mailbox.checkHeader();
            MailboxHandle handle = new MailboxHandle(id, mailbox.protocolMode(), mapFile, mailbox);
            handles.put(id, handle);
            return Optional.of(handle);
        }
    }

    /** Every allocated mailbox id. */
    public synchronized List<MailboxId> ids() {
        List<MailboxId> ids = new ArrayList<>();
        for (CharSequence key : map.keySet()) {
            MailboxId id = MailboxId.ofKey(key);
            if (!releasedRecords.contains(id)) {
                ids.add(id);
            }
        }
        return ids;
    }

    /**
     * Frees a mailbox. The caller guarantees its child has been reaped: no process may still hold the offset
     * (a live child writing into a freed, reused record is a use-after-free across processes). Survivors keep
     * their mailboxes. Returns false if it was not allocated. The record of a mailbox handed out by this store stays in
     * the map until {@link #removeReleased}; any other is removed now.
     */
    public synchronized boolean release(MailboxId id) {
        if (releasedRecords.contains(id)) {
            return false;
        }
        if (handles.remove(id) != null) {
            releasedRecords.add(id);
            return true;
        }
        return removeRecord(id);
    }

    /** How many released mailboxes still have their records in the map ({@link #removeReleased} removes them). */
    public synchronized int releasedNotRemoved() {
        return releasedRecords.size();
    }

    /** Removes from the map the records of the mailboxes released so far; how many. */
    public synchronized int removeReleased() {
        int n = releasedRecords.size();
        for (MailboxId id : releasedRecords) {
            removeRecord(id);
        }
        releasedRecords.clear();
        return n;
    }

    private boolean removeRecord(MailboxId id) {
        // Removed in place: map.remove(key) would first copy the whole record (mailbox and ring) out as its result.
        try (ExternalMapQueryContext<CharSequence, byte[], ?> context = map.queryContext(id.key())) {
            context.updateLock().lock();
            MapEntry<CharSequence, byte[]> entry = context.entry();
            if (entry == null) {
                return false;
            }
            context.remove(entry);
            return true;
        }
    }

    @Override
    public synchronized void close() {
        removeReleased();
        handles.clear();
        boolean empty = map.isEmpty(); // else a kept child may write its mailbox after this close
        map.close();
        try {
            file.close();
        } catch (IOException ignored) {
            // nothing was written through it but a restored length, already in the file
        }
        seal(mapFile, empty);
        try {
            Files.deleteIfExists(ownerMarker);
        } catch (IOException e) {
            throw new MailboxException("cannot remove owner marker: file=" + ownerMarker + " error=" + e.getMessage(), e);
        }
    }

    /** The 64-byte-aligned file offset of the mailbox inside the value of {@code id}. */
    private long mailboxOffset(MailboxId id) {
        long valueAddress = valueAddress(id);
        try {
            long valueOffset = mappings.fileOffsetOf(valueAddress);
            if (valueOffset < 0) {
                throw new MailboxException("mailbox value not inside a mapping of the map file: " + id + " file=" + mapFile
                        + " address=0x" + Long.toHexString(valueAddress));
            }
            return (valueOffset + MAILBOX_ALIGNMENT - 1) & -MAILBOX_ALIGNMENT;
        } catch (IOException e) {
            throw new MailboxException("cannot read /proc/self/maps: " + id + " error=" + e.getMessage(), e);
        }
    }

    private long valueAddress(MailboxId id) {
        try (ExternalMapQueryContext<CharSequence, byte[], ?> context = map.queryContext(id.key())) {
            MapEntry<CharSequence, byte[]> entry = context.entry();
            if (entry == null) {
                throw new MailboxException("mailbox not allocated: " + id);
            }
            Data<byte[]> value = entry.value();
            if (value.size() != valueLength) {
                throw new MailboxException("mailbox value has the wrong size: " + id + " size=" + value.size() + " expected=" + valueLength
                        + " (ring capacity " + ring.capacity() + ")");
            }
            RandomDataInput bytes = value.bytes();
            return bytes.addressForRead(value.offset());
        }
    }

    /** Proves the computed offset: Chronicle's view of the value holds the magic we wrote through our own mapping. */
    private void verifySameMemory(MailboxId id, MappedMailbox mailbox) {
        try (ExternalMapQueryContext<CharSequence, byte[], ?> context = map.queryContext(id.key())) {
            MapEntry<CharSequence, byte[]> entry = context.entry();
            Data<byte[]> value = entry.value();
            long valueOffset = mappings.fileOffsetOf(value.bytes().addressForRead(value.offset()));
            long seen = value.bytes().readLong(value.offset() + (mailbox.fileOffset() - valueOffset));
            if (seen != MailboxDescriptor.MAGIC) {
                throw new MailboxException("mailbox offset does not address the map entry: " + id + " offset=" + mailbox.fileOffset()
                        + " magicSeen=0x" + Long.toHexString(seen));
            }
        } catch (IOException e) {
            throw new MailboxException("cannot read /proc/self/maps: " + id + " error=" + e.getMessage(), e);
        }
    }
}
