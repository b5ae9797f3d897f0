package dev.vigil.litmus;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.MappedMailbox;
import dev.vigil.mailbox.TransitionRecord;
import dev.vigil.mailbox.WriterRole;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Ring publication, a seqlock: the writer marks the slot busy (ticket 0), writes the body, then stores ticket + 1
 * with release; the reader acquire-loads the ticket, reads the body, re-checks the ticket. The slot here is being
 * reused: it holds the record of ticket {@value #OLD_TICKET} (seq 1) and the writer publishes ticket
 * {@value #NEW_TICKET} (seq 2) over it. Result: 0 = not readable (pending or overwritten), 2 = the new record
 * whole, anything else = a torn or stale body under a valid ticket.
 */
public final class RingRecordLitmus {
    static final long OLD_TICKET = 0;
    static final long NEW_TICKET = LitmusMailbox.RING;

    private RingRecordLitmus() {
    }

    static LitmusMailbox withOldRecord() {
        LitmusMailbox words = new LitmusMailbox();
        words.mailbox.recordTransition(1, 1, MailboxState.IDLE, MailboxState.CONTROL_REQUEST, WriterRole.PARENT, LitmusMailbox.PID);
        words.plainSet(RING_HEAD_OFFSET, NEW_TICKET);
        return words;
    }

    /** 2 when seq, time and origin all belong to the new record, 1 when all to the old one, else 3 (torn). */
    static int classify(long seq, long time, int to) {
        if (seq == 2 && time == 2 && to == MailboxState.CONTROL_DONE) {
            return 2;
        }
        return seq == 1 && time == 1 && to == MailboxState.CONTROL_REQUEST ? 1 : 3;
    }

    @JCStressTest
    @Outcome(id = {"0", "2"}, expect = Expect.ACCEPTABLE, desc = "not readable yet, or the new record whole")
    @Outcome(id = "1", expect = Expect.FORBIDDEN, desc = "valid new ticket over the old body")
    @Outcome(id = "3", expect = Expect.FORBIDDEN, desc = "valid new ticket over a torn body")
    @State
    public static class SeqlockPublication {
        final MappedMailbox mailbox = withOldRecord().mailbox;

        @Actor
        public void writer() {
            mailbox.recordTransition(2, 2, MailboxState.CONTROL_REQUEST, MailboxState.CONTROL_DONE, WriterRole.CHILD, LitmusMailbox.PID);
        }

        @Actor
        public void drainer(I_Result r) {
            TransitionRecord record = mailbox.readRing(NEW_TICKET);
            r.r1 = record.readable() ? classify(record.seq(), record.timeNanos(), record.toState()) : 0;
        }
    }

    /** Weakened: no busy mark, no fences; body and ticket stored plain, the reader loads plain and does not re-check. */
    @JCStressTest
    @Outcome(id = {"0", "2"}, expect = Expect.ACCEPTABLE, desc = "not readable yet, or the new record whole")
    @Outcome(id = {"1", "3"}, expect = Expect.ACCEPTABLE_INTERESTING, desc = "valid new ticket over an old or torn body (reordered)")
    @State
    public static class SeqlockPublicationPlain {
        final LitmusMailbox words = withOldRecord();
        final int slot = ringSlotOffset(NEW_TICKET, LitmusMailbox.RING);

        @Actor
        public void writer() {
            words.plainSet(slot + RECORD_SEQ_OFFSET, 2);
            words.plainSet(slot + RECORD_TIME_OFFSET, 2);
            words.plainSet(slot + RECORD_ORIGIN_OFFSET, (long) MailboxState.CONTROL_DONE << 8);
            words.plainSet(slot + RECORD_TICKET_OFFSET, NEW_TICKET + 1);
        }

        @Actor
        public void drainer(I_Result r) {
            if (words.plainGet(slot + RECORD_TICKET_OFFSET) != NEW_TICKET + 1) {
                r.r1 = 0;
                return;
            }
            r.r1 = classify(words.plainGet(slot + RECORD_SEQ_OFFSET), words.plainGet(slot + RECORD_TIME_OFFSET),
                    (int) (words.plainGet(slot + RECORD_ORIGIN_OFFSET) >>> 8 & 0xFF));
        }
    }
}
