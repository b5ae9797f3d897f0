package dev.vigil.close.decision;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class SurvivorDiagnosisTest {
    private static final long S = 1_000_000_000L;
    private static final ProcSnapshot SLEEPING = new ProcSnapshot('S', "futex_wait", List.of());

    private static MailboxWords sticky(int state, String name, long shutdown, long ack) {
        return new MailboxWords(state, name, "PARENT", 7, false, shutdown, ack, 100);
    }

    private static SurvivorEvidence evidence(MailboxWords w, long beatAge, ProcSnapshot proc) {
        return new SurvivorEvidence("chips", 2, 4711, "JAVA", w, beatAge, 1 * S, proc, List.of());
    }

    @Test
    void aStoppedChildIsStoppedWhateverItsMailboxSays() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(sticky(4, "CONTROL_REQUEST", 0, 0), 5 * S,
                new ProcSnapshot('T', "do_signal_stop", List.of("do_signal_stop", "get_signal"))));
        assertEquals(SurvivorClass.STOPPED, d.survivorClass());
        assertTrue(d.line().contains("proc=T wchan=do_signal_stop stack=do_signal_stop<get_signal"), d.line());
    }

    @Test
    void stickyWithoutTheShutdownWordIsNotDelivered() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(sticky(0, "IDLE", 0, 0), S / 10, SLEEPING));
        assertEquals(SurvivorClass.NOT_DELIVERED, d.survivorClass());
        assertTrue(d.line().contains("shutdown=unset"), d.line());
    }

    @Test
    void legacyNamesTheStateAndWriterThatOverwroteShutdown() {
        MailboxWords w = new MailboxWords(5, "CONTROL_DONE", "CHILD", 9, true, 0, 0, 100);
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(w, S / 10, SLEEPING));
        assertEquals(SurvivorClass.NOT_DELIVERED, d.survivorClass());
        assertTrue(d.line().contains("state=CONTROL_DONE shutdown=overwritten writer=CHILD mode=legacy"), d.line());
    }

    @Test
    void aChildInsideAControlHandlerIsStuckInHandlerWithTheExactMessageShape() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(new SurvivorEvidence("chips", 2, 4711, "JAVA",
                sticky(4, "CONTROL_REQUEST", 77, 0), 3_200_000_000L, S, SLEEPING, List.of(),
                new SurvivorEvidence.OpenCommand("CONTROL", 3, 17, 20_100_000_000L)));
        assertEquals(SurvivorClass.STUCK_IN_HANDLER, d.survivorClass());
        assertTrue(d.line().startsWith("pid=4711 group=chips child=2 class=STUCK_IN_HANDLER state=CONTROL_REQUEST "
                + "shutdown=set ack=none heartbeat_age=3.2s op=3 command=17 in_handler=20.1s proc=S wchan=futex_wait"),
                d.line());
        assertEquals("handler op 3 (command 17) has run 20.1s without a heartbeat: poll cancellation in it, or raise "
                + "the window above its longest run", SurvivorDiagnosis.nextStep(d.survivorClass(), d.line()));
    }

    @Test
    void aTaskInProgressIsStuckInHandlerEvenWithoutAJournaledCommand() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(sticky(1, "TASK_READY", 77, 0), 2 * S, SLEEPING));
        assertEquals(SurvivorClass.STUCK_IN_HANDLER, d.survivorClass());
        assertTrue(SurvivorDiagnosis.nextStep(d.survivorClass(), d.line()).startsWith("its handler (TASK_READY) has run"));
    }

    @Test
    void legacyShutdownOverAHandlerStillRunningIsStuckInHandlerButIdleLegacyIgnoresIt() {
        MailboxWords w = new MailboxWords(3, "SHUTDOWN", "CLOSER", 9, true, 0, 0, 100);
        assertEquals(SurvivorClass.STUCK_IN_HANDLER, SurvivorDiagnosis.classify(new SurvivorEvidence("chips", 2, 4711,
                "C", w, 2 * S, S, SLEEPING, List.of(), new SurvivorEvidence.OpenCommand("CONTROL", 1, 5, 2 * S)))
                .survivorClass());
        assertEquals(SurvivorClass.NOT_OBSERVED, SurvivorDiagnosis.classify(evidence(w, 2 * S, SLEEPING)).survivorClass());
    }

    @Test
    void aCommandTheChildAlreadyAnsweredIsNamedWithoutATimeInHandler() {
        MailboxWords w = new MailboxWords(5, "CONTROL_DONE", "CHILD", 12, true, 0, 0, 100);
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(new SurvivorEvidence("chips", 2, 4711, "C", w, 0, S, SLEEPING,
                List.of(), new SurvivorEvidence.OpenCommand("CONTROL", 6, 4, 1_300_000_000L)));
        assertEquals(SurvivorClass.NOT_DELIVERED, d.survivorClass());
        assertTrue(d.line().contains(" op=6 command=4 proc=S"), d.line());
    }

    @Test
    void anIdleChildThatNeverAcksIgnoresShutdown() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(sticky(0, "IDLE", 77, 0), S / 100, SLEEPING));
        assertEquals(SurvivorClass.NOT_OBSERVED, d.survivorClass());
        assertTrue(SurvivorDiagnosis.nextStep(d.survivorClass(), d.line()).startsWith("idle in its loop (IDLE"),
                SurvivorDiagnosis.nextStep(d.survivorClass(), d.line()));
    }

    /**
     * A mailbox child that never mapped its mailbox by its start's timeout (bin/vigil run: kind mailbox-exec running
     * sleep 600) was told to "read its stacks and its stderr" of a loop; it names the program and that it never attached.
     */
    @Test
    void aChildThatNeverMappedItsMailboxIsNamedAsNotSpeakingTheProtocol() {
        MailboxWords fresh = new MailboxWords(0, "IDLE", "NONE", 0, false, 77, 0, 0);
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(fresh, S,
                new ProcSnapshot('S', "hrtimer_nanosleep", List.of(), false, "/usr/bin/sleep")));
        assertEquals(SurvivorClass.NOT_OBSERVED, d.survivorClass());
        String next = SurvivorDiagnosis.nextStep(d.survivorClass(), d.line());
        assertTrue(next.startsWith("it never mapped its mailbox and runs /usr/bin/sleep (proc=S wchan=hrtimer_nanosleep): "
                + "a program that does not attach to the mailbox"), next);
    }

    /** A Python child still starting (seq 0, no INIT_READY) when its start's rollback closed it was "idle in its loop". */
    @Test
    void aChildThatNeverReachedItsLoopIsNotSaidToIdleInIt() {
        MailboxWords fresh = new MailboxWords(0, "IDLE", "NONE", 0, false, 77, 0, 0);
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(fresh, S, new ProcSnapshot('S', "anon_pipe_read", List.of())));
        assertEquals(SurvivorClass.NOT_OBSERVED, d.survivorClass());
        String next = SurvivorDiagnosis.nextStep(d.survivorClass(), d.line());
        assertTrue(next.startsWith("it never reached its loop (IDLE at seq 0: no INIT_READY, proc=S wchan=anon_pipe_read)"), next);
        // the cause too: its fixed text said "the child is idle in its loop" of a child that never had one
        String cause = SurvivorDiagnosis.cause(d.survivorClass(), d.line());
        assertTrue(cause.contains("never reached its loop") && !cause.contains("idle in its loop"), cause);
        assertEquals(SurvivorClass.NOT_OBSERVED.cause(), SurvivorDiagnosis.cause(SurvivorClass.NOT_OBSERVED,
                SurvivorDiagnosis.classify(evidence(sticky(0, "IDLE", 77, 0), S / 100, SLEEPING)).line()));
    }

    @Test
    void everyClassHasACauseAndANextStep() {
        for (SurvivorClass c : SurvivorClass.values()) {
            assertTrue(c.cause().length() > 20 && c.nextStep().length() > 20, c.name());
            assertEquals(c, SurvivorClass.named(c.name()));
            assertTrue(SurvivorDiagnosis.nextStep(c, "pid=1 class=" + c.name()).length() > 20, c.name());
        }
    }

    @Test
    void ackedButSilentForAWindowIsWedgedAndSoIsDiskSleep() {
        assertEquals(SurvivorClass.WEDGED, SurvivorDiagnosis.classify(
                evidence(sticky(0, "IDLE", 77, 5), 1 * S, SLEEPING)).survivorClass());
        assertEquals(SurvivorClass.WEDGED, SurvivorDiagnosis.classify(
                evidence(sticky(0, "IDLE", 77, 5), 0, new ProcSnapshot('D', "io_schedule", List.of()))).survivorClass());
    }

    @Test
    void ackedAndBeatingIsFinalizing() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(sticky(0, "IDLE", 77, 5), S / 10, SLEEPING));
        assertEquals(SurvivorClass.FINALIZING, d.survivorClass());
        assertTrue(d.line().contains("ack=set heartbeat_age=0.1s"), d.line());
        // a beating clean-up resets the no-progress window: a larger window never helps, a hard cap does (a C child
        // beating in its clean-up loop held a close 617 s, its next step said "raise the window")
        String next = SurvivorDiagnosis.nextStep(d.survivorClass(), d.line());
        assertTrue(next.contains("hard cap") && !next.contains("raise the window"), next);
    }

    @Test
    void aPlainExecutableThatIgnoresItsStopSignalIsNotObserved() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(new SurvivorEvidence("srv", 0, 99, "EXEC", null, -1, S,
                SLEEPING, List.of("shutdown published channel=SIGNAL:15 cas=won")));
        assertEquals(SurvivorClass.NOT_OBSERVED, d.survivorClass());
        assertTrue(d.line().contains("state=SIGNALED_ONLY")
                && d.line().endsWith("last_events=[shutdown published channel=SIGNAL:15 cas=won]"), d.line());
        // a plain executable has no loop to idle in: its cause says what happened, it outlived its stop signal
        String cause = SurvivorDiagnosis.cause(d.survivorClass(), d.line());
        assertTrue(cause.startsWith("stop signal delivered but it did not exit: a plain executable")
                && !cause.contains("idle in its loop"), cause);
    }

    @Test
    void procOfThisProcessIsReadable() {
        ProcSnapshot p = ProcSnapshot.read((int) ProcessHandle.current().pid());
        assertTrue("RS".indexOf(p.state()) >= 0, "state=" + p.state());
        assertEquals('?', ProcSnapshot.read(Integer.MAX_VALUE).state());
    }
}
