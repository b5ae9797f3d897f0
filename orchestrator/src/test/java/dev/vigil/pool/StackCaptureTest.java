package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.child.demo.GateControlHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.JournalScenarios;
import dev.vigil.close.StackCapture;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.EscalationSent;
import dev.vigil.journal.JournalEvent;
import dev.vigil.journal.SurvivorStacks;
import dev.vigil.spawn.Redirect;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A survivor's own stacks are captured before the first escalation signal (real children stuck in a handler),
 * journaled in full and summed up in the report: a C child through eu-stack, a Java child through jcmd, a Python
 * child through faulthandler on SIGUSR2.
 */
@Timeout(180)
class StackCaptureTest {
    @TempDir
    Path tmp;
    private Orchestrator orchestrator;

    @BeforeEach
    void open() {
        orchestrator = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults())
                .open();
    }

    @AfterEach
    void close() {
        orchestrator.close();
    }

    private CloseReport.Child stuckAndKilled(String group, ChildSpec spec) throws Exception {
        Pool p = Pool.builder(orchestrator, "stacks-" + group).childOutput(Redirect.DISCARD)
                .startTimeout(Duration.ofSeconds(60))
                .closeSettings(CloseSettings.builder().window(Duration.ofMillis(700))
                        .escalation(EscalationPolicy.TERM_THEN_KILL).grace(Duration.ofMillis(300)).build())
                .group(group, 1, spec).start();
        p.sendControl(group, 0, DemoHandler.OP_ECHO, 1);
        JournalScenarios.awaitInsideHandler(p.child(group, 0));
        CloseReport r = JournalScenarios.closeExpectingFailure(p);
        return r.child(group, 0);
    }

    private SurvivorStacks journaled(int pid) {
        orchestrator.journal().writer().flush();
        List<JournalEvent> events = JournalChecks.readAll(tmp.resolve("journal"));
        SurvivorStacks found = null;
        int stacksAt = -1;
        int firstSignalAt = -1;
        for (int i = 0; i < events.size(); i++) {
            if (events.get(i) instanceof SurvivorStacks s && s.pid() == pid) {
                found = s;
                stacksAt = i;
            } else if (events.get(i) instanceof EscalationSent e && e.pid() == pid && firstSignalAt < 0) {
                firstSignalAt = i;
            }
        }
        assertNotNull(found, "no SurvivorStacks journaled for pid " + pid);
        assertTrue(stacksAt < firstSignalAt, "the stacks are taken before the first escalation signal");
        return found;
    }

    @Test
    void aCChildStuckInAHandlerHasItsThreadsCapturedByEuStackBeforeItIsKilled() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/eu-stack")), "eu-stack (elfutils) is installed by .ci/run");
        CloseReport.Child c = stuckAndKilled("chips", ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1"));
        assertEquals(CloseReport.ChildOutcome.KILLED_BY_ESCALATION, c.outcome());
        assertEquals("STUCK_IN_HANDLER", c.diagnosis(), c.evidence());
        assertNotNull(c.stacks(), "report carries the stacks line");
        assertTrue(c.stacks().startsWith("eu-stack ") && c.stacks().contains("thread(s), first: "), c.stacks());
        SurvivorStacks s = journaled(c.pid());
        assertEquals("eu-stack", s.tool());
        assertTrue(s.stacks().contains("TID " + c.pid()), s.stacks());
        System.out.println("C survivor: " + c.stacks());
    }

    @Test
    void aJavaChildStuckInAHandlerHasItsThreadsCapturedByJcmdBeforeItIsKilled() throws Exception {
        CloseReport.Child c = stuckAndKilled("java", ChildSpec.java(GateControlHandler.class.getName()));
        assertEquals("STUCK_IN_HANDLER", c.diagnosis(), c.evidence());
        assertNotNull(c.stacks(), "report carries the stacks line");
        assertTrue(c.stacks().startsWith("jcmd Thread.print ") && c.stacks().contains("thread(s)"), c.stacks());
        SurvivorStacks s = journaled(c.pid());
        assertTrue(s.stacks().contains("DemoHandler.onControl"), "the handler's frame is in the dump: " + s.summary());
        System.out.println("Java survivor: " + c.stacks());
    }

    @Test
    void aPythonChildStuckInAHandlerHasItsThreadsDumpedByFaulthandlerBeforeItIsKilled() throws Exception {
        CloseReport.Child c = stuckAndKilled("py", ChildSpec.python("vigil_child.demo:DemoHandler")
                .withEnv(DemoBehaviour.GATE, "1"));
        assertEquals("STUCK_IN_HANDLER", c.diagnosis(), c.evidence());
        assertNotNull(c.stacks(), "report carries the stacks line");
        assertTrue(c.stacks().startsWith("faulthandler ") && c.stacks().contains("on_control@demo.py"), c.stacks());
        SurvivorStacks s = journaled(c.pid());
        assertEquals("faulthandler", s.tool());
        assertTrue(s.stacks().contains("in on_control"), s.stacks());
        // killed by escalation, the child never ran its clean-up: its dump lived in a memfd, so nothing is left on disk
        // (before, /tmp/vigil-stacks-PID.txt stayed: 18 such files piled up over one session's test runs)
        Path oldPlace = Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp"), "vigil-stacks-" + c.pid() + ".txt");
        assertTrue(!java.nio.file.Files.exists(oldPlace), "left behind: " + oldPlace);
        System.out.println("Python survivor: " + c.stacks());
    }

    /**
     * Under LEAK nothing is killed, and the stacks are captured all the same, before the close ends with the survivor
     * kept: journaled ahead of the close's CloseCompleted, no escalation signal at all. (Before, a LEAK close captured
     * nothing: its report had no stacks line and the journal no SurvivorStacks.)
     */
    @Test
    void aCChildKeptUnderLeakHasItsThreadsCapturedBeforeTheCloseEnds() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/eu-stack")), "eu-stack (elfutils) is installed by .ci/run");
        Pool p = Pool.builder(orchestrator, "stacks-leak").childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(60))
                .closeSettings(CloseSettings.builder().window(Duration.ofMillis(700)).escalation(EscalationPolicy.LEAK).build())
                .group("kept", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1")).start();
        p.sendControl("kept", 0, DemoHandler.OP_ECHO, 1);
        JournalScenarios.awaitInsideHandler(p.child("kept", 0));
        CloseReport r = JournalScenarios.closeExpectingFailure(p);
        CloseReport.Child c = r.child("kept", 0);
        assertEquals(CloseReport.ChildOutcome.SURVIVOR, c.outcome());
        assertTrue(ProcessTree.running(c.pid()), "kept running under LEAK: pid " + c.pid());
        assertNotNull(c.stacks(), "report carries the stacks line of the kept child");
        assertTrue(c.stacks().startsWith("eu-stack ") && c.stacks().contains("thread(s), first: "), c.stacks());
        orchestrator.journal().writer().flush();
        List<JournalEvent> events = JournalChecks.readAll(tmp.resolve("journal"));
        int stacksAt = -1;
        int completedAt = -1;
        for (int i = 0; i < events.size(); i++) {
            JournalEvent e = events.get(i);
            if (e instanceof SurvivorStacks st && st.pid() == c.pid()) {
                stacksAt = i;
            } else if (e instanceof CloseCompleted done && done.closeId() == r.closeId()) {
                completedAt = i;
            }
            assertTrue(!(e instanceof EscalationSent s && s.pid() == c.pid()), "no escalation signal under LEAK: " + e);
        }
        assertTrue(stacksAt >= 0 && stacksAt < completedAt, "SurvivorStacks journaled before the close completed: stacks at "
                + stacksAt + ", CloseCompleted at " + completedAt);
        System.out.println("kept survivor: " + c.stacks());
    }
}
