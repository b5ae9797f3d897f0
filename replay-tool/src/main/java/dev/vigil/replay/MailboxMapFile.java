package dev.vigil.replay;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads mailboxes out of the orchestrator's mailbox map file, for a post-mortem: the final words
 * of each child's mailbox and the transition-ring records the orchestrator had not yet drained
 * into the journal when it died. Reads the file with plain positional reads (no mapping, so a
 * truncated file cannot fault) at the offsets the journal's ChildSpawned events name.
 *
 * <p>Layout version 2, as documented in docs/MAILBOX.md (defined by the orchestrator's
 * {@code dev.vigil.mailbox.MailboxDescriptor}; the replay tool reads files only and mirrors the
 * offsets here; a test checks they agree).
 */
public final class MailboxMapFile implements AutoCloseable {
    static final long MAGIC = 0x31424D4C49474956L;
    static final int LAYOUT_VERSION = 2;
    static final int MAGIC_OFFSET = 0;
    static final int LAYOUT_VERSION_OFFSET = 8;
    static final int PROTOCOL_MODE_OFFSET = 12;
    static final int MAILBOX_LENGTH_OFFSET = 16;
    static final int RING_CAPACITY_OFFSET = 20;
    static final int SPAWN_EPOCH_OFFSET = 24;
    static final int CHILD_PID_OFFSET = 36;
    static final int STATE_WORD_OFFSET = 64;
    static final int SHUTDOWN_WORD_OFFSET = 128;
    static final int SHUTDOWN_ACK_OFFSET = 192;
    static final int HEARTBEAT_OFFSET = 200;
    static final int RING_OFFSET = 640;
    static final int RING_RECORD_LENGTH = 32;
    static final int MAX_RING_CAPACITY = 65536;
    private static final String[] ROLES = {"NONE", "PARENT", "CHILD", "CLOSER"};

    private final Path file;
    private final FileChannel channel;

    private MailboxMapFile(Path file, FileChannel channel) {
        this.file = file;
        this.channel = channel;
    }

    /**
     * How every mailbox map file starts: the orchestrator's store is a persisted Chronicle Map, whose file opens
     * with its self-describing header (12 bytes, then this class name).
     */
    static final String CHRONICLE_MAP_HEADER = "!net.openhft.chronicle.map.";
    /** How far into the file the header's class name must start. */
    static final int HEADER_SEARCH_BYTES = 64;

    /**
     * Opens the map file read-only; {@link ReplayInputException} when it is missing, unreadable, or not a mailbox
     * map file at all (JSON, text, random bytes: anything that does not start with a Chronicle Map header).
     */
    public static MailboxMapFile open(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ReplayInputException("mailbox map file=" + file + (Files.exists(file) ? " is not a regular file"
                    : " does not exist"));
        }
        FileChannel channel;
        try {
            channel = FileChannel.open(file, StandardOpenOption.READ);
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " cannot be read: " + dev.vigil.journal.JournalException.plain(e));
        }
        MailboxMapFile map = new MailboxMapFile(file, channel);
        try {
            map.checkHeader();
        } catch (RuntimeException notAMap) {
            map.close();
            throw notAMap;
        }
        return map;
    }

    private void checkHeader() {
        long size;
        try {
            size = channel.size();
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " cannot be read: " + dev.vigil.journal.JournalException.plain(e));
        }
        ByteBuffer head = ByteBuffer.allocate((int) Math.min(size, HEADER_SEARCH_BYTES));
        try {
            while (head.hasRemaining() && channel.read(head, head.position()) > 0) {
                // the first bytes
            }
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " cannot be read: " + dev.vigil.journal.JournalException.plain(e));
        }
        String text = new String(head.array(), 0, head.position(), java.nio.charset.StandardCharsets.ISO_8859_1);
        if (!text.contains(CHRONICLE_MAP_HEADER)) {
            throw new ReplayInputException("mailbox map file=" + file + " is not a mailbox map file: it does not start with"
                    + " the Chronicle Map header the orchestrator's mailbox store writes (" + size + " bytes, starting \""
                    + printable(text, 24) + "\")");
        }
    }

    /** At most {@code max} characters of {@code text}, every byte outside printable ASCII shown as '.'. */
    static String printable(String text, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(max, text.length()); i++) {
            char c = text.charAt(i);
            sb.append(c >= 0x20 && c < 0x7F && c != '"' ? c : '.');
        }
        return sb.toString();
    }

    /** The decoded state word: state, writer role, seq. */
    public record StateWord(int state, String writer, long seq) {
        static StateWord of(long word) {
            int role = (int) ((word >>> 8) & 0xFF);
            return new StateWord((int) (word & 0xFF), role < ROLES.length ? ROLES[role] : "ROLE_" + role, word >>> 16);
        }

        @Override
        public String toString() {
            return MailboxStates.name(state) + " (" + writer + ", seq " + seq + ")";
        }
    }

    /** One transition-ring record as the writer left it. */
    public record RingRecord(long ticket, long seq, long timeNanos, int from, int to, String writer, int writerPid) {
    }

    /** A mailbox's last words: what the journal could not say if the orchestrator died. */
    public record Mailbox(long offset, int protocolMode, int childPid, long spawnEpoch, StateWord state, long shutdownWord,
            long ackNanos, long heartbeat, List<RingRecord> ring) {
        public String describe() {
            return "state word " + state + ", shutdown word " + (shutdownWord == 0 ? "unset" : "epoch " + shutdownWord)
                    + ", ack " + (ackNanos == 0 ? "none" : "at " + ackNanos) + ", heartbeat " + heartbeat + ", child pid "
                    + childPid + ", mode " + (protocolMode == 1 ? "legacy" : "sticky");
        }
    }

    /** What the map file holds for one child of the journal: its mailbox, or why it shows none (one line). */
    public record Finding(Mailbox mailbox, String note) {
    }

    /** Why a mailbox the journal says was released (MailboxReleased) shows no words, in one line. */
    static String releasedNote(long offset) {
        return "no mailbox at offset " + offset + " (released: MailboxReleased journaled; what the freed record still"
                + " holds is not this child's mailbox)";
    }

    /**
     * The mailbox at {@code offset} if it still belongs to the child the journal shows there: the same child pid
     * (written by the child when it attached; 0 if it never did) and the same spawn epoch (the allocation's
     * CLOCK_MONOTONIC stamp, journaled in ChildSpawned; 0 in journals that did not record it). A mailbox released and
     * allocated again to another child differs in both; its words are not this child's and are not used.
     */
    public Finding readFor(long offset, int pid, long spawnEpoch) {
        Mailbox m = read(offset);
        if (m == null) {
            return new Finding(null, "no mailbox at offset " + offset + " (released, or the map file of another"
                    + " orchestrator)");
        }
        boolean otherPid = m.childPid() != 0 && pid > 0 && m.childPid() != pid;
        boolean otherEpoch = spawnEpoch != 0 && m.spawnEpoch() != spawnEpoch;
        if (otherPid || otherEpoch) {
            return new Finding(null, "the mailbox at offset " + offset + " belongs to another child now (pid "
                    + m.childPid() + ", spawn epoch " + m.spawnEpoch() + "), not to pid " + pid + " (spawn epoch "
                    + spawnEpoch + "): its words are not shown");
        }
        return new Finding(m, null);
    }

    /**
     * Reads the mailbox at {@code offset}, or returns null when no mailbox is there (released, or
     * never written); {@link ReplayInputException} when one of another layout version is there.
     */
    public Mailbox read(long offset) {
        ByteBuffer b = readAt(offset, RING_OFFSET);
        if (b == null) {
            long length;
            try {
                length = channel.size();
            } catch (IOException e) {
                length = -1;
            }
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " lies past the end of the"
                    + " file (length=" + length + "): a map file cut short, or another orchestrator's");
        }
        if (b.getLong(MAGIC_OFFSET) != MAGIC) {
            return null;
        }
        int version = b.getInt(LAYOUT_VERSION_OFFSET);
        if (version == 1) {
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " has layout version=1 (the"
                    + " ring before flow control, written by a build before issue 10); this build reads layout version="
                    + LAYOUT_VERSION + " only: read it with the vigil-replay of the build that wrote it");
        }
        if (version != LAYOUT_VERSION) {
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " has layout version="
                    + version + "; this reader knows version=" + LAYOUT_VERSION);
        }
        int capacity = b.getInt(RING_CAPACITY_OFFSET);
        if (capacity <= 0 || capacity > MAX_RING_CAPACITY || Integer.bitCount(capacity) != 1
                || b.getInt(MAILBOX_LENGTH_OFFSET) != RING_OFFSET + capacity * RING_RECORD_LENGTH) {
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " has a bad header: length="
                    + b.getInt(MAILBOX_LENGTH_OFFSET) + " ringCapacity=" + capacity);
        }
        ByteBuffer whole = readAt(offset, b.getInt(MAILBOX_LENGTH_OFFSET));
        if (whole == null) {
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " ends inside the mailbox: length="
                    + b.getInt(MAILBOX_LENGTH_OFFSET));
        }
        b = whole;
        List<RingRecord> ring = new ArrayList<>();
        for (int slot = 0; slot < capacity; slot++) {
            int at = RING_OFFSET + slot * RING_RECORD_LENGTH;
            long ticketPlusOne = b.getLong(at);
            if (ticketPlusOne == 0) {
                continue; // never written, or being written when the writer stopped
            }
            long origin = b.getLong(at + 24);
            int role = (int) ((origin >>> 16) & 0xFF);
            ring.add(new RingRecord(ticketPlusOne - 1, b.getLong(at + 8), b.getLong(at + 16), (int) (origin & 0xFF),
                    (int) ((origin >>> 8) & 0xFF), role < ROLES.length ? ROLES[role] : "ROLE_" + role,
                    (int) (origin >>> 32)));
        }
        ring.sort(Comparator.comparingLong(RingRecord::ticket));
        return new Mailbox(offset, b.getInt(PROTOCOL_MODE_OFFSET), b.getInt(CHILD_PID_OFFSET), b.getLong(SPAWN_EPOCH_OFFSET),
                StateWord.of(b.getLong(STATE_WORD_OFFSET)), b.getLong(SHUTDOWN_WORD_OFFSET), b.getLong(SHUTDOWN_ACK_OFFSET),
                b.getLong(HEARTBEAT_OFFSET), List.copyOf(ring));
    }

    /** {@code length} bytes at {@code offset}, or null when the file ends before them. */
    private ByteBuffer readAt(long offset, int length) {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        try {
            while (b.hasRemaining()) {
                if (channel.read(b, offset + b.position()) < 0) {
                    return null;
                }
            }
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " unreadable: "
                    + dev.vigil.journal.JournalException.plain(e));
        }
        return b;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " close failed: " + dev.vigil.journal.JournalException.plain(e));
        }
    }
}
