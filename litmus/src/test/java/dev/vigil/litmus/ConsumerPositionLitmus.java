package dev.vigil.litmus;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The ring's consumer position (layout 2, flow control: the drainer copies a slot's body, then release-stores its
 * position past it; a writer acquire-loads the position and writes the slot again only once the position says the
 * drainer is done with it). The drainer's read of the old body must not see the new writer's store: that would be a
 * store the writer made only after seeing a release that came after the read (load buffering). Results: r1 = the
 * body the drainer copied (1 old, 2 new), r2 = the writer's view of the position (0 full, 1 free: it wrote).
 * The protocol test uses {@code MappedMailbox}'s own position accessors; the body is slot 0's seq word.
 */
public final class ConsumerPositionLitmus {
    static final int BODY_OFFSET = RING_OFFSET + RECORD_SEQ_OFFSET;

    private ConsumerPositionLitmus() {
    }

    static LitmusMailbox withOldBody() {
        LitmusMailbox words = new LitmusMailbox();
        words.plainSet(BODY_OFFSET, 1);
        return words;
    }

    @JCStressTest
    @Outcome(id = {"1, 0", "1, 1"}, expect = Expect.ACCEPTABLE, desc = "the drainer copied the old body; the writer waited or wrote after")
    @Outcome(id = "2, 1", expect = Expect.FORBIDDEN, desc = "the drainer copied a body written after its own position release")
    @State
    public static class ReleasedPositionFreesTheSlot {
        final LitmusMailbox words = withOldBody();

        @Actor
        public void drainer(JJ_Result r) {
            r.r1 = words.plainGet(BODY_OFFSET);
            words.mailbox.ringConsumerPositionRelease(1);
        }

        @Actor
        public void writer(JJ_Result r) {
            r.r2 = words.mailbox.ringConsumerPositionAcquire();
            if (r.r2 != 0) {
                words.plainSet(BODY_OFFSET, 2);
            }
        }
    }

    /** Weakened: the position stored and loaded plain (load buffering: x86-64 never shows it, a compiler may). */
    @JCStressTest
    @Outcome(id = {"1, 0", "1, 1"}, expect = Expect.ACCEPTABLE, desc = "the drainer copied the old body; the writer waited or wrote after")
    @Outcome(id = "2, 1", expect = Expect.ACCEPTABLE_INTERESTING, desc = "the drainer copied a body written after its own position store (reordered)")
    @State
    public static class ReleasedPositionFreesTheSlotPlain {
        final LitmusMailbox words = withOldBody();

        @Actor
        public void drainer(JJ_Result r) {
            r.r1 = words.plainGet(BODY_OFFSET);
            words.plainSet(RING_CONSUMER_POSITION_OFFSET, 1);
        }

        @Actor
        public void writer(JJ_Result r) {
            r.r2 = words.plainGet(RING_CONSUMER_POSITION_OFFSET);
            if (r.r2 != 0) {
                words.plainSet(BODY_OFFSET, 2);
            }
        }
    }
}
