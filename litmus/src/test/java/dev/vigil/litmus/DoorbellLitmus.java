package dev.vigil.litmus;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.WriterRole;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The doorbell's sleeping flag against the command publish (issue 15, the io_uring NEED_WAKEUP pattern): an idle
 * child stores "I will sleep" into its mailbox, then re-checks the state word, and blocks only if no request is
 * there; the parent publishes the request (the state-word CAS), then loads the flag, and rings only if it is set.
 * Both sides store one word and then load the other (Dekker): the forbidden outcome is a child asleep on a request
 * and a parent that did not ring, a lost wake-up. Only a full fence between each side's store and load excludes it
 * (sequentially consistent accesses: VarHandle volatile or CAS, C {@code __ATOMIC_SEQ_CST}); release/acquire does
 * not, and x86-64's store buffer shows that for real.
 *
 * <p>The sequentially consistent test runs the production accessors ({@code MappedMailbox.sleepingVolatile},
 * {@code stateVolatile}, {@code casTransition}: what ChildRuntime and MailboxHandle call; the C runtime uses
 * {@code __ATOMIC_SEQ_CST} for the same store and loads). Results: r1 = the child saw the request on its re-check,
 * r2 = the parent saw the child's flag.
 */
public final class DoorbellLitmus {
    static final int SLEEPING_FLAG_OFFSET = DOORBELL_SLEEPING_OFFSET;

    private DoorbellLitmus() {
    }

    /** As the doorbell must do it: the flag stored volatile, the state re-checked volatile; the parent's CAS, then a volatile load. */
    @JCStressTest
    @Outcome(id = {"1, 0", "0, 1", "1, 1"}, expect = Expect.ACCEPTABLE, desc = "the child saw the request, or the parent saw the flag and rings")
    @Outcome(id = "0, 0", expect = Expect.FORBIDDEN, desc = "lost wake-up: the child sleeps on a request, the parent does not ring")
    @State
    public static class SleepingFlagSequentiallyConsistent {
        final LitmusMailbox words = new LitmusMailbox();

        @Actor
        public void child(II_Result r) {
            words.mailbox.sleepingVolatile(1);
            r.r1 = state(words.mailbox.stateVolatile()) == MailboxState.CONTROL_REQUEST ? 1 : 0;
        }

        @Actor
        public void parent(II_Result r) {
            words.mailbox.casTransition(0L, MailboxState.CONTROL_REQUEST, WriterRole.PARENT, LitmusMailbox.PID);
            r.r2 = words.mailbox.sleepingVolatile() != 0 ? 1 : 0;
        }
    }

    /** Weakened: release store of the flag, acquire loads; the parent's request a release store (no CAS, no full fence). */
    @JCStressTest
    @Outcome(id = {"1, 0", "0, 1", "1, 1"}, expect = Expect.ACCEPTABLE, desc = "the child saw the request, or the parent saw the flag and rings")
    @Outcome(id = "0, 0", expect = Expect.ACCEPTABLE_INTERESTING, desc = "lost wake-up: store-load reordering (each load passed the side's own store)")
    @State
    public static class SleepingFlagReleaseAcquire {
        final LitmusMailbox words = new LitmusMailbox();

        @Actor
        public void child(II_Result r) {
            words.releaseSet(SLEEPING_FLAG_OFFSET, 1);
            r.r1 = state(words.acquireGet(STATE_WORD_OFFSET)) == MailboxState.CONTROL_REQUEST ? 1 : 0;
        }

        @Actor
        public void parent(II_Result r) {
            words.releaseSet(STATE_WORD_OFFSET, LitmusMailbox.REQUEST);
            r.r2 = words.acquireGet(SLEEPING_FLAG_OFFSET) != 0 ? 1 : 0;
        }
    }
}
