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
import org.openjdk.jcstress.infra.results.JJ_Result;

/**
 * The state word publishes the areas written before it: the parent's command area (plain stores, then the CAS
 * to CONTROL_REQUEST), the child's result area (plain stores, then the CAS to CONTROL_DONE). A reader that
 * acquire-loads the new state must see the area. Results: r1 = the state seen (-1 = not yet), r2 = the id read.
 */
public final class StateWordLitmus {
    private StateWordLitmus() {
    }

    /** Parent writes the command, CASes IDLE -> CONTROL_REQUEST; the child acquire-loads, then reads the command. */
    @JCStressTest
    @Outcome(id = {"-1, 0", "-1, 9", "4, 9"}, expect = Expect.ACCEPTABLE, desc = "request not seen yet, or seen with its command")
    @Outcome(id = "4, 0", expect = Expect.FORBIDDEN, desc = "request seen, command not")
    @State
    public static class CommandPublication {
        final MappedMailbox mailbox = new LitmusMailbox().mailbox;

        @Actor
        public void parent() {
            mailbox.writeCommand(LitmusMailbox.COMMAND_ID, 1, LitmusMailbox.ARGUMENT);
            mailbox.casTransition(0L, MailboxState.CONTROL_REQUEST, WriterRole.PARENT, LitmusMailbox.PID);
        }

        @Actor
        public void child(JJ_Result r) {
            int state = state(mailbox.stateAcquire());
            r.r1 = state == MailboxState.CONTROL_REQUEST ? state : -1;
            r.r2 = mailbox.commandId();
        }
    }

    /** Weakened {@link CommandPublication}: the state word stored and loaded plain. */
    @JCStressTest
    @Outcome(id = {"-1, 0", "-1, 9", "4, 9"}, expect = Expect.ACCEPTABLE, desc = "request not seen yet, or seen with its command")
    @Outcome(id = "4, 0", expect = Expect.ACCEPTABLE_INTERESTING, desc = "request seen, command not (reordered)")
    @State
    public static class CommandPublicationPlain {
        final LitmusMailbox words = new LitmusMailbox();

        @Actor
        public void parent() {
            words.mailbox.writeCommand(LitmusMailbox.COMMAND_ID, 1, LitmusMailbox.ARGUMENT);
            words.plainSet(STATE_WORD_OFFSET, LitmusMailbox.REQUEST);
        }

        @Actor
        public void child(JJ_Result r) {
            int state = state(words.plainGet(STATE_WORD_OFFSET));
            r.r1 = state == MailboxState.CONTROL_REQUEST ? state : -1;
            r.r2 = words.mailbox.commandId();
        }
    }

    /** Child writes the result, CASes CONTROL_REQUEST -> CONTROL_DONE; the parent acquire-loads, then reads the result. */
    @JCStressTest
    @Outcome(id = {"-1, 0", "-1, 9", "5, 9"}, expect = Expect.ACCEPTABLE, desc = "done not seen yet, or seen with its result")
    @Outcome(id = "5, 0", expect = Expect.FORBIDDEN, desc = "done seen, result not")
    @State
    public static class ResultPublication {
        final MappedMailbox mailbox = LitmusMailbox.withRequest().mailbox;

        @Actor
        public void child() {
            mailbox.writeResult(LitmusMailbox.COMMAND_ID, LitmusMailbox.ARGUMENT, 0, null);
            mailbox.casTransition(LitmusMailbox.REQUEST, MailboxState.CONTROL_DONE, WriterRole.CHILD, LitmusMailbox.PID);
        }

        @Actor
        public void parent(JJ_Result r) {
            int state = state(mailbox.stateAcquire());
            r.r1 = state == MailboxState.CONTROL_DONE ? state : -1;
            r.r2 = mailbox.resultId();
        }
    }

    /** Weakened {@link ResultPublication}: the state word stored and loaded plain. */
    @JCStressTest
    @Outcome(id = {"-1, 0", "-1, 9", "5, 9"}, expect = Expect.ACCEPTABLE, desc = "done not seen yet, or seen with its result")
    @Outcome(id = "5, 0", expect = Expect.ACCEPTABLE_INTERESTING, desc = "done seen, result not (reordered)")
    @State
    public static class ResultPublicationPlain {
        final LitmusMailbox words = LitmusMailbox.withRequest();

        @Actor
        public void child() {
            words.mailbox.writeResult(LitmusMailbox.COMMAND_ID, LitmusMailbox.ARGUMENT, 0, null);
            words.plainSet(STATE_WORD_OFFSET, stateWord(MailboxState.CONTROL_DONE, WriterRole.CHILD, 2));
        }

        @Actor
        public void parent(JJ_Result r) {
            int state = state(words.plainGet(STATE_WORD_OFFSET));
            r.r1 = state == MailboxState.CONTROL_DONE ? state : -1;
            r.r2 = words.mailbox.resultId();
        }
    }
}
