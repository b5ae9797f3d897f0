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

    /** Opens the map file read-only; {@link ReplayInputException} when it is missing or unreadable. */
    public static MailboxMapFile open(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ReplayInputException("mailbox map file=" + file + (Files.exists(file) ? " is not a regular file"
                    : " does not exist"));
        }
        try {
            return new MailboxMapFile(file, FileChannel.open(file, StandardOpenOption.READ));
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " cannot be read: " + e);
        }
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
    public record Mailbox(long offset, int protocolMode, int childPid, StateWord state, long shutdownWord, long ackNanos,
            long heartbeat, List<RingRecord> ring) {
        public String describe() {
            return "state word " + state + ", shutdown word " + (shutdownWord == 0 ? "unset" : "epoch " + shutdownWord)
                    + ", ack " + (ackNanos == 0 ? "none" : "at " + ackNanos) + ", heartbeat " + heartbeat + ", child pid "
                    + childPid + ", mode " + (protocolMode == 1 ? "legacy" : "sticky");
        }
    }

    /**
     * Reads the mailbox at {@code offset}, or returns null when no mailbox is there (released, or
     * never written); {@link ReplayInputException} when one of another layout version is there.
     */
    public Mailbox read(long offset) {
        ByteBuffer b = readAt(offset, RING_OFFSET);
        if (b == null || b.getLong(MAGIC_OFFSET) != MAGIC) {
            return null;
        }
        int version = b.getInt(LAYOUT_VERSION_OFFSET);
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
        return new Mailbox(offset, b.getInt(PROTOCOL_MODE_OFFSET), b.getInt(CHILD_PID_OFFSET),
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
            throw new ReplayInputException("mailbox map file=" + file + " offset=" + offset + " unreadable: " + e);
        }
        return b;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new ReplayInputException("mailbox map file=" + file + " close failed: " + e);
        }
    }
}
