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
    void aChildInsideAControlHandlerIsNotObservedWithTheExactMessageShape() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(evidence(sticky(4, "CONTROL_REQUEST", 77, 0), 3_200_000_000L,
                SLEEPING));
        assertEquals(SurvivorClass.NOT_OBSERVED, d.survivorClass());
        assertTrue(d.line().startsWith("pid=4711 group=chips child=2 class=NOT_OBSERVED state=CONTROL_REQUEST "
                + "shutdown=set ack=none heartbeat_age=3.2s proc=S wchan=futex_wait"), d.line());
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
    }

    @Test
    void aPlainExecutableThatIgnoresItsStopSignalIsNotObserved() {
        SurvivorDiagnosis d = SurvivorDiagnosis.classify(new SurvivorEvidence("srv", 0, 99, "EXEC", null, -1, S,
                SLEEPING, List.of("shutdown published channel=SIGNAL:15 cas=won")));
        assertEquals(SurvivorClass.NOT_OBSERVED, d.survivorClass());
        assertTrue(d.line().contains("state=SIGNALED_ONLY")
                && d.line().endsWith("last_events=[shutdown published channel=SIGNAL:15 cas=won]"), d.line());
    }

    @Test
    void procOfThisProcessIsReadable() {
        ProcSnapshot p = ProcSnapshot.read((int) ProcessHandle.current().pid());
        assertTrue("RS".indexOf(p.state()) >= 0, "state=" + p.state());
        assertEquals('?', ProcSnapshot.read(Integer.MAX_VALUE).state());
    }
}
