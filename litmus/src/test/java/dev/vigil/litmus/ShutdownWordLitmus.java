package dev.vigil.litmus;

import static dev.vigil.mailbox.MailboxDescriptor.*;

import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.MappedMailbox;
import dev.vigil.mailbox.WriterRole;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The lost-shutdown race: a closer requests shutdown while the child finishes a control command
 * (the state word holds CONTROL_REQUEST, the child read it before running the command).
 * The child completes only a request it read (CONTROL_REQUEST), as the serve loop does; it read it before the
 * command ran ({@link LitmusMailbox#runCommand}), so the closer's write can land between its read and its write.
 * Results: r1 = the closer's request took effect as far as it can tell, r2 = the child's completion
 * took effect, r3 = at the end the request is still visible (shutdown word non-zero, or state SHUTDOWN).
 */
public final class ShutdownWordLitmus {
    private ShutdownWordLitmus() {
    }

    /** Sticky protocol (production): shutdown is its own word, CAS 0 -> epoch; the child CASes the state word. */
    @JCStressTest
    @Outcome(id = {"1, 1, 1", "1, 0, 1"}, expect = Expect.ACCEPTABLE, desc = "the request stays visible whatever the child wrote")
    @Outcome(id = {"1, 1, 0", "1, 0, 0"}, expect = Expect.FORBIDDEN, desc = "shutdown lost")
    @State
    public static class Sticky {
        final MappedMailbox mailbox = LitmusMailbox.withRequest().mailbox;

        @Actor
        public void closer(III_Result r) {
            r.r1 = mailbox.casShutdown(7) == 0 ? 1 : 0;
        }

        @Actor
        public void child(III_Result r) {
            long read = mailbox.stateAcquire();
            LitmusMailbox.runCommand();
            r.r2 = state(read) == MailboxState.CONTROL_REQUEST
                    && mailbox.casTransition(read, MailboxState.CONTROL_DONE, WriterRole.CHILD, LitmusMailbox.PID) != MappedMailbox.TRANSITION_FAILED ? 1 : 0;
        }

        @Arbiter
        public void end(III_Result r) {
            r.r3 = mailbox.shutdownAcquire() != 0 ? 1 : 0;
        }
    }

    /**
     * The state word only, every writer by CAS from the word it read: the closer's CAS or the child's fails,
     * and the one that fails knows it (the closer retries, the child sees SHUTDOWN). Nothing is lost silently.
     */
    @JCStressTest
    @Outcome(id = {"1, 0, 1", "1, 1, 1"}, expect = Expect.ACCEPTABLE, desc = "the closer's CAS went after whatever the child wrote")
    @Outcome(id = "0, 1, 0", expect = Expect.ACCEPTABLE, desc = "the child's CAS won; the closer's failed and it knows (it retries)")
    @Outcome(id = {"1, 1, 0", "1, 0, 0"}, expect = Expect.FORBIDDEN, desc = "shutdown lost although the closer's CAS succeeded")
    @State
    public static class StateWordCasOnly {
        final MappedMailbox mailbox = LitmusMailbox.withRequest().mailbox;

        @Actor
        public void closer(III_Result r) {
            long read = mailbox.stateAcquire();
            r.r1 = mailbox.casTransition(read, MailboxState.SHUTDOWN, WriterRole.CLOSER, LitmusMailbox.PID) != MappedMailbox.TRANSITION_FAILED ? 1 : 0;
        }

        @Actor
        public void child(III_Result r) {
            long read = mailbox.stateAcquire();
            LitmusMailbox.runCommand();
            r.r2 = state(read) == MailboxState.CONTROL_REQUEST
                    && mailbox.casTransition(read, MailboxState.CONTROL_DONE, WriterRole.CHILD, LitmusMailbox.PID) != MappedMailbox.TRANSITION_FAILED ? 1 : 0;
        }

        @Arbiter
        public void end(III_Result r) {
            r.r3 = state(mailbox.stateAcquire()) == MailboxState.SHUTDOWN ? 1 : 0;
        }
    }

    /**
     * Weakened: the legacy protocol (the upstream runner) stores SHUTDOWN into the state word with a plain store
     * and the child stores CONTROL_DONE computed from the word it read before the command. Both stores "succeed";
     * when the child's lands last the request is erased. A race, not a reordering: x86-64 shows it for real.
     */
    @JCStressTest
    @Outcome(id = {"1, 1, 1", "1, 0, 1"}, expect = Expect.ACCEPTABLE, desc = "the closer's store landed last, or the child saw SHUTDOWN")
    @Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE_INTERESTING, desc = "shutdown lost: the child's stale store erased it")
    @State
    public static class LegacyPlainStore {
        final MappedMailbox mailbox = LitmusMailbox.withRequest().mailbox;

        @Actor
        public void closer(III_Result r) {
            long read = mailbox.stateAcquire();
            mailbox.storeTransition(read, MailboxState.SHUTDOWN, WriterRole.CLOSER, LitmusMailbox.PID);
            r.r1 = 1;
        }

        @Actor
        public void child(III_Result r) {
            long read = mailbox.stateAcquire();
            if (state(read) == MailboxState.CONTROL_REQUEST) {
                LitmusMailbox.runCommand();
                mailbox.storeTransition(read, MailboxState.CONTROL_DONE, WriterRole.CHILD, LitmusMailbox.PID);
                r.r2 = 1;
            }
        }

        @Arbiter
        public void end(III_Result r) {
            r.r3 = state(mailbox.stateAcquire()) == MailboxState.SHUTDOWN ? 1 : 0;
        }
    }
}
