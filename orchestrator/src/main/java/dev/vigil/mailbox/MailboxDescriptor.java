package dev.vigil.mailbox;

/**
 * The on-disk layout of one mailbox: the single place where its offsets are defined. The C header
 * {@code native/include/vigil/mailbox.h} mirrors every constant with {@code _Static_assert(offsetof(...))}
 * and {@code MailboxLayoutParityTest} fails when the two disagree. Fields are native byte order
 * (little-endian on x86-64 and aarch64); every protocol word is 8-byte aligned and the mailbox itself
 * starts on a 64-byte boundary of the map file, so words written by different processes sit on
 * different cache lines.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     MAGIC  (8 bytes)                   @0     | line 0: identity,
 *  +---------------------------------------------------------------+ written by the parent
 *  |  LAYOUT_VERSION  @8            |  PROTOCOL_MODE  @12          | at allocation (child pid
 *  +---------------------------------------------------------------+ by the child at attach)
 *  |  MAILBOX_LENGTH  @16           |  RING_CAPACITY  @20          |
 *  +---------------------------------------------------------------+
 *  |                     SPAWN_EPOCH  @24                          |
 *  +---------------------------------------------------------------+
 *  |  PARENT_PID  @32               |  CHILD_PID  @36              |
 *  +---------------------------------------------------------------+
 *  |                     RING_WAIT_NANOS  @40                      |
 *  +---------------------------------------------------------------+
 *  |                     reserved  @48 .. 63                       |
 *  +===============================================================+
 *  |                     STATE_WORD  @64                           | line 1: CAS by parent, child
 *  +===============================================================+ (closer too, legacy only)
 *  |                     SHUTDOWN_WORD  @128                       | line 2: closer only, once
 *  +===============================================================+
 *  |                     SHUTDOWN_ACK  @192                        | line 3: child only
 *  |                     HEARTBEAT  @200                           |
 *  +===============================================================+
 *  |                     COMMAND_ID  @256                          | line 4: parent only
 *  |  OPCODE  @264                  |  reserved  @268              |
 *  |                     ARGUMENT  @272                            |
 *  |                     GATE  @280   (demo/test gate word)        |
 *  +===============================================================+
 *  |                     RESULT_ID  @320                           | lines 5-6: child only
 *  |                     RESULT_VALUE  @328                        |
 *  |  ERROR_CODE  @336              |  ERROR_LENGTH  @340          |
 *  |                     ERROR_TEXT  @344 .. 447  (UTF-8)          |
 *  +===============================================================+
 *  |                     RING_HEAD  @448                           | line 7: fetch-and-add by
 *  +===============================================================+ every transition writer
 *  |                     RING_CONSUMER_POSITION  @512              | line 8: the parent's drainer
 *  |                     RING_FLOW_CONTROL  @520                   | only (release stores)
 *  +===============================================================+
 *  |                     DOORBELL_SLEEPING  @576                   | line 9: the doorbell, touched
 *  |  DOORBELL_RING  @584 (futex)   |  reserved  @588 .. 639       | only on the sleep path
 *  +===============================================================+
 *  |  RING  @640: RING_CAPACITY records of RING_RECORD_LENGTH (32)  | capacity: a power of two
 *  +---------------------------------------------------------------+ in the identity line
 *
 *  state word (64 bit):  bits 0-7 state | bits 8-15 writer role | bits 16-63 sequence
 *
 *  ring record (32 bytes, at RING_OFFSET + (ticket % RING_CAPACITY) * RING_RECORD_LENGTH):
 *  +---------------------------------------------------------------+
 *  |  RECORD_TICKET  @0  (ticket + 1, stored last with release)     |
 *  |  RECORD_SEQ  @8     (sequence of the state word written)       |
 *  |  RECORD_TIME  @16   (CLOCK_MONOTONIC nanos of the transition)  |
 *  |  FROM @24 | TO @25 | WRITER @26 | pad @27 | WRITER_PID @28     |
 *  +---------------------------------------------------------------+
 * </pre>
 */
public final class MailboxDescriptor {
    /** "VIGILMB1" read as a little-endian long: the first word of every mailbox. */
    public static final long MAGIC = 0x31424D4C49474956L;
    public static final int LAYOUT_VERSION = 2;

    public static final int CACHE_LINE_LENGTH = 64;
    /** Every mailbox starts at a file offset that is a multiple of this. */
    public static final int MAILBOX_ALIGNMENT = CACHE_LINE_LENGTH;

    public static final int MAGIC_OFFSET = 0;
    public static final int LAYOUT_VERSION_OFFSET = MAGIC_OFFSET + Long.BYTES;
    public static final int PROTOCOL_MODE_OFFSET = LAYOUT_VERSION_OFFSET + Integer.BYTES;
    public static final int MAILBOX_LENGTH_OFFSET = PROTOCOL_MODE_OFFSET + Integer.BYTES;
    public static final int RING_CAPACITY_OFFSET = MAILBOX_LENGTH_OFFSET + Integer.BYTES;
    public static final int SPAWN_EPOCH_OFFSET = RING_CAPACITY_OFFSET + Integer.BYTES;
    public static final int PARENT_PID_OFFSET = SPAWN_EPOCH_OFFSET + Long.BYTES;
    public static final int CHILD_PID_OFFSET = PARENT_PID_OFFSET + Integer.BYTES;
    /**
     * How long a transition writer waits for the parent's drainer before it laps an undrained record (spin,
     * yield, then park; docs/MAILBOX.md "Flow control"). Written by the parent at allocation.
     */
    public static final int RING_WAIT_NANOS_OFFSET = CHILD_PID_OFFSET + Integer.BYTES;

    public static final int STATE_WORD_OFFSET = CACHE_LINE_LENGTH;
    public static final int SHUTDOWN_WORD_OFFSET = STATE_WORD_OFFSET + CACHE_LINE_LENGTH;
    public static final int SHUTDOWN_ACK_OFFSET = SHUTDOWN_WORD_OFFSET + CACHE_LINE_LENGTH;
    public static final int HEARTBEAT_OFFSET = SHUTDOWN_ACK_OFFSET + Long.BYTES;

    public static final int COMMAND_ID_OFFSET = SHUTDOWN_ACK_OFFSET + CACHE_LINE_LENGTH;
    public static final int OPCODE_OFFSET = COMMAND_ID_OFFSET + Long.BYTES;
    public static final int ARGUMENT_OFFSET = OPCODE_OFFSET + 2 * Integer.BYTES;
    /** A word the parent (a test or demo) sets to release children blocked in a demo handler; not part of the protocol. */
    public static final int GATE_OFFSET = ARGUMENT_OFFSET + Long.BYTES;

    public static final int RESULT_ID_OFFSET = COMMAND_ID_OFFSET + CACHE_LINE_LENGTH;
    public static final int RESULT_VALUE_OFFSET = RESULT_ID_OFFSET + Long.BYTES;
    public static final int ERROR_CODE_OFFSET = RESULT_VALUE_OFFSET + Long.BYTES;
    public static final int ERROR_LENGTH_OFFSET = ERROR_CODE_OFFSET + Integer.BYTES;
    public static final int ERROR_TEXT_OFFSET = ERROR_LENGTH_OFFSET + Integer.BYTES;
    public static final int RING_HEAD_OFFSET = RESULT_ID_OFFSET + 2 * CACHE_LINE_LENGTH;
    public static final int ERROR_TEXT_LENGTH = RING_HEAD_OFFSET - ERROR_TEXT_OFFSET;

    /** The next ticket the parent has not yet drained: every lower ticket is in the journal (or counted lost). Parent only. */
    public static final int RING_CONSUMER_POSITION_OFFSET = RING_HEAD_OFFSET + CACHE_LINE_LENGTH;
    /** 1 while a live drainer publishes its position and writers must not lap it; 0: writers never wait. Parent only. */
    public static final int RING_FLOW_CONTROL_OFFSET = RING_CONSUMER_POSITION_OFFSET + Long.BYTES;
    /** Line 9: the doorbell (docs/MAILBOX.md, "The doorbell"). Both its words are touched only when a child goes to sleep or is woken. */
    public static final int DOORBELL_LINE_OFFSET = RING_CONSUMER_POSITION_OFFSET + CACHE_LINE_LENGTH;
    /** 1 while the child is asleep on (or about to block on) the doorbell, else 0. Child only, volatile / SEQ_CST store. */
    public static final int DOORBELL_SLEEPING_OFFSET = DOORBELL_LINE_OFFSET;
    /** A 32-bit counter the parent increments on every ring (then FUTEX_WAKE): the futex word a C child waits on. Parent only. */
    public static final int DOORBELL_RING_OFFSET = DOORBELL_SLEEPING_OFFSET + Long.BYTES;
    public static final int RING_OFFSET = DOORBELL_LINE_OFFSET + CACHE_LINE_LENGTH;
    /** Ring capacity unless the orchestrator is told otherwise; always a power of two in [MIN, MAX]. */
    public static final int DEFAULT_RING_CAPACITY = 1024;
    public static final int MIN_RING_CAPACITY = 8;
    public static final int MAX_RING_CAPACITY = 65536;
    /** Default of {@link #RING_WAIT_NANOS_OFFSET}: a live drainer frees space within a millisecond; one second means it is not live. */
    public static final long DEFAULT_RING_WAIT_NANOS = 1_000_000_000L;
    public static final int RING_RECORD_LENGTH = 32;
    public static final int RECORD_TICKET_OFFSET = 0;
    public static final int RECORD_SEQ_OFFSET = 8;
    public static final int RECORD_TIME_OFFSET = 16;
    /** from (byte 0), to (byte 1), writer role (byte 2), pad, writer pid (bytes 4-7): one 64-bit word. */
    public static final int RECORD_ORIGIN_OFFSET = 24;

    /** The length of a mailbox with the default ring; see {@link #mailboxLength(int)}. */
    public static final int DEFAULT_MAILBOX_LENGTH = RING_OFFSET + DEFAULT_RING_CAPACITY * RING_RECORD_LENGTH;

    public static final int STATE_BITS = 8;
    public static final int WRITER_SHIFT = 8;
    public static final int SEQ_SHIFT = 16;
    public static final long SEQ_MASK = (1L << (Long.SIZE - SEQ_SHIFT)) - 1;

    private MailboxDescriptor() {
    }

    /** Packs a state word. */
    public static long stateWord(int state, WriterRole writer, long seq) {
        return (seq & SEQ_MASK) << SEQ_SHIFT | (long) writer.code() << WRITER_SHIFT | (state & 0xFF);
    }

    public static int state(long stateWord) {
        return (int) (stateWord & 0xFF);
    }

    public static int writerCode(long stateWord) {
        return (int) ((stateWord >>> WRITER_SHIFT) & 0xFF);
    }

    public static long seq(long stateWord) {
        return stateWord >>> SEQ_SHIFT;
    }

    /** Human-readable form of a state word: {@code CONTROL_DONE/CHILD#17}. */
    public static String describe(long stateWord) {
        return MailboxState.name(state(stateWord)) + "/" + WriterRole.nameOf(writerCode(stateWord)) + "#" + seq(stateWord);
    }

    /** The length of a mailbox whose ring holds {@code ringCapacity} records (the ring ends the mailbox). */
    public static int mailboxLength(int ringCapacity) {
        checkRingCapacity(ringCapacity);
        return RING_OFFSET + ringCapacity * RING_RECORD_LENGTH;
    }

    public static void checkRingCapacity(int ringCapacity) {
        if (!validRingCapacity(ringCapacity)) {
            throw new MailboxException("ring capacity must be a power of two in [" + MIN_RING_CAPACITY + ", " + MAX_RING_CAPACITY
                    + "]: ringCapacity=" + ringCapacity);
        }
    }

    private static boolean validRingCapacity(int ringCapacity) {
        return ringCapacity >= MIN_RING_CAPACITY && ringCapacity <= MAX_RING_CAPACITY && Integer.bitCount(ringCapacity) == 1;
    }

    /** Offset of the ring slot of {@code ticket} in a ring of {@code ringCapacity} (a power of two) records. */
    public static int ringSlotOffset(long ticket, int ringCapacity) {
        return RING_OFFSET + (int) (ticket & (ringCapacity - 1)) * RING_RECORD_LENGTH;
    }

    public static void checkMailboxOffset(long fileOffset) {
        if (fileOffset < 0 || fileOffset % MAILBOX_ALIGNMENT != 0) {
            throw new MailboxException("mailbox offset not aligned: offset=" + fileOffset + " alignment=" + MAILBOX_ALIGNMENT);
        }
    }

    /** Checks the identity line of a mailbox as read from memory; fails with name=value context. */
    public static void checkHeader(long magic, int layoutVersion, int mailboxLength, int ringCapacity) {
        if (magic != MAGIC) {
            throw new MailboxException("not a vigil mailbox: magic=0x" + Long.toHexString(magic) + " expected=0x" + Long.toHexString(MAGIC));
        }
        if (layoutVersion != LAYOUT_VERSION) {
            throw new MailboxException("layout version mismatch: layoutVersion=" + layoutVersion + " expected=" + LAYOUT_VERSION);
        }
        if (!validRingCapacity(ringCapacity) || mailboxLength != RING_OFFSET + ringCapacity * RING_RECORD_LENGTH) {
            throw new MailboxException("mailbox geometry mismatch: mailboxLength=" + mailboxLength + " ringCapacity=" + ringCapacity
                    + " expectedLength=RING_OFFSET(" + RING_OFFSET + ")+ringCapacity*" + RING_RECORD_LENGTH + " with ringCapacity a power of two in ["
                    + MIN_RING_CAPACITY + ", " + MAX_RING_CAPACITY + "]");
        }
    }

    public static void checkState(int state) {
        if (state < MailboxState.IDLE || state > MailboxState.INIT_FAILED) {
            throw new MailboxException("unknown mailbox state: state=" + state);
        }
    }
}
