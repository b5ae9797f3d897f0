package dev.vigil.litmus;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.MappedMailbox;
import dev.vigil.mailbox.WriterRole;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The shutdown ack: the child CASes it 0 -> now after its last state-word transition, and never transitions
 * again. A closer that sees the ack (acquire) must see that last transition: otherwise it would name a command
 * the child already served as abandoned (MailboxHandle.pendingCommandId). Results: r1 = ack seen, r2 = the
 * state word still CONTROL_REQUEST.
 */
public final class AckLitmus {
    private AckLitmus() {
    }

    @JCStressTest
    @Outcome(id = {"0, 0", "0, 1", "1, 0"}, expect = Expect.ACCEPTABLE, desc = "ack not seen yet, or seen after the child's last transition")
    @Outcome(id = "1, 1", expect = Expect.FORBIDDEN, desc = "ack seen, the child's last transition not: a served command named abandoned")
    @State
    public static class AckPublishesTheLastTransition {
        final MappedMailbox mailbox = LitmusMailbox.withRequest().mailbox;

        @Actor
        public void child() {
            mailbox.casTransition(LitmusMailbox.REQUEST, MailboxState.CONTROL_DONE, WriterRole.CHILD, LitmusMailbox.PID);
            mailbox.casAck(5);
        }

        @Actor
        public void closer(II_Result r) {
            r.r1 = mailbox.ackAcquire() != 0 ? 1 : 0;
            r.r2 = state(mailbox.stateAcquire()) == MailboxState.CONTROL_REQUEST ? 1 : 0;
        }
    }

    /** Weakened: the child's transition and ack are plain stores, the closer's loads plain. */
    @JCStressTest
    @Outcome(id = {"0, 0", "0, 1", "1, 0"}, expect = Expect.ACCEPTABLE, desc = "ack not seen yet, or seen after the child's last transition")
    @Outcome(id = "1, 1", expect = Expect.ACCEPTABLE_INTERESTING, desc = "ack seen, the child's last transition not (reordered)")
    @State
    public static class AckPublishesTheLastTransitionPlain {
        final LitmusMailbox words = LitmusMailbox.withRequest();

        @Actor
        public void child() {
            words.plainSet(STATE_WORD_OFFSET, stateWord(MailboxState.CONTROL_DONE, WriterRole.CHILD, 2));
            words.plainSet(SHUTDOWN_ACK_OFFSET, 5);
        }

        @Actor
        public void closer(II_Result r) {
            r.r1 = words.plainGet(SHUTDOWN_ACK_OFFSET) != 0 ? 1 : 0;
            r.r2 = state(words.plainGet(STATE_WORD_OFFSET)) == MailboxState.CONTROL_REQUEST ? 1 : 0;
        }
    }
}
