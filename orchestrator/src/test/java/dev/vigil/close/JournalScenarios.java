package dev.vigil.close;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.child.demo.GateControlHandler;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.pool.PoolChild;
import dev.vigil.pool.ProcessTree;
import dev.vigil.spawn.Redirect;

/**
 * Real closes of real pools, written into a journal: a clean close, every survivor class, an
 * escalation, retries, concurrent closes. Used by the orchestrator's own tests and, through the
 * orchestrator test-jar, by the replay tool's equivalence test ({@link #runAll}: the reports returned
 * are the live ones the replay must rebuild from the journal). Each scenario checks its own
 * preconditions and leaves no process and no mailbox behind.
 */
public final class JournalScenarios {
    /** SIGSTOP on Linux x86-64 / arm64. */
    public static final int SIGSTOP = 19;
    private static final Duration WAIT = Duration.ofSeconds(15);

    private JournalScenarios() {
    }

    /** Runs every scenario into {@code journalDir} (the mailbox map goes next to it) and returns the live reports, in close order. */
    public static List<CloseReport> runAll(Path journalDir) throws Exception {
        List<CloseReport> reports = new ArrayList<>();
        try (Orchestrator o = Orchestrator.builder().journalDir(journalDir).closeSettings(CloseSettings.defaults()).open()) {
            reports.add(clean(o, "clean"));
            reports.add(progressing(o, "progressing"));
            reports.addAll(finalizingThenRetry(o, "finalizing"));
            reports.addAll(notObservedLeakedThenRetried(o, "leaked"));
            reports.add(notObservedEscalated(o, "escalated"));
            reports.add(stopped(o, "stopped"));
            reports.add(notDeliveredLegacy(o, "legacy"));
            reports.add(wedged(o, "wedged"));
            reports.addAll(concurrent(o, "concurrent", 3, 3));
            reports.add(restartedUntilTheIntensityLimit(o, "restarts"));
            reports.add(failedPool(o, "failpool"));
        }
        return reports;
    }

    static CloseSettings settings(Duration window) {
        return CloseSettings.builder().window(window).build();
    }

    static CloseSettings termThenKill(Duration window) {
        return CloseSettings.builder().window(window).escalation(EscalationPolicy.TERM_THEN_KILL)
                .grace(Duration.ofMillis(500)).build();
    }

    static Pool.Builder pool(Orchestrator o, String id, CloseSettings s) {
        return Pool.builder(o, id).closeSettings(s).childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(20));
    }

    /** A Java child, C children (one exiting 42), a plain executable ended by its stop signal and a script exiting 3. */
    public static CloseReport clean(Orchestrator o, String id) throws Exception {
        // A plain executable has no readiness handshake: the script says when its TERM trap is armed,
        // otherwise a quick close could deliver SIGTERM before the trap exists (exit by signal, not 3).
        Path trapArmed = Files.createTempFile("vigil-trap-armed", ".flag");
        Files.delete(trapArmed);
        Pool p = pool(o, id, settings(Duration.ofSeconds(3)))
                .group("java", 1, ChildSpec.java(DemoHandler.class.getName()))
                .group("chips", 2, ChildSpec.cDemo())
                .group("exit42", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.EXIT_CODE, "42"))
                .group("plain", 1, ChildSpec.exec("sleep", "60"))
                .group("script", 1, ChildSpec.exec("sh", "-c",
                        "trap 'exit 3' TERM; : > \"$TRAP_ARMED\"; while :; do sleep 0.05; done")
                        .withEnv("TRAP_ARMED", trapArmed.toString()))
                .start();
        p.control("java", 0, DemoHandler.OP_ECHO, 7, WAIT);
        p.runTask("chips", 1, DemoHandler.OP_ECHO, 8, WAIT);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Files.exists(trapArmed)) {
            check(System.nanoTime() < deadline, "script child never armed its TERM trap");
            Thread.sleep(5);
        }
        Files.delete(trapArmed);
        return p.closeWithReport();
    }

    /**
     * Exit policy restart (at most 2 within 60 s, backoff 20 ms): a C child ends itself (OP_EXIT 3) three times;
     * twice it is restarted, the third exit fails the pool, whose close reaps the last one. Returns that close.
     */
    public static CloseReport restartedUntilTheIntensityLimit(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, settings(Duration.ofSeconds(3)))
                .exitPolicy(dev.vigil.pool.ExitPolicy.restart(2, Duration.ofSeconds(60), Duration.ofMillis(20),
                        Duration.ofMillis(100)))
                .group("flaky", 1, ChildSpec.cDemo()).group("steady", 1, ChildSpec.cDemo()).start();
        for (int round = 0; round < 3; round++) {
            PoolChild c = p.child("flaky", 0);
            try {
                p.control("flaky", 0, DemoHandler.OP_EXIT, 3, WAIT);
                check(false, "OP_EXIT answered");
            } catch (dev.vigil.mailbox.MailboxException expected) {
                // the child exited under it
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (round < 2 && (p.child("flaky", 0) == c || p.child("flaky", 0).mailbox().awaitInit(Duration.ofMillis(20))
                    != dev.vigil.mailbox.InitOutcome.READY)) {
                check(System.nanoTime() < deadline, "child not restarted");
                Thread.sleep(2);
            }
        }
        return awaitFailureClose(p);
    }

    /** Exit policy fail-pool: one of three C children exits (OP_EXIT 5); the pool fails and closes at once. */
    public static CloseReport failedPool(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, settings(Duration.ofSeconds(3))).exitPolicy(dev.vigil.pool.ExitPolicy.failPool())
                .group("g", 3, ChildSpec.cDemo()).start();
        try {
            p.control("g", 1, DemoHandler.OP_EXIT, 5, WAIT);
            check(false, "OP_EXIT answered");
        } catch (dev.vigil.mailbox.MailboxException expected) {
            // the child exited under it
        }
        return awaitFailureClose(p);
    }

    private static CloseReport awaitFailureClose(Pool p) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (p.failure().isEmpty() || p.lastReport().isEmpty()) {
            check(System.nanoTime() < deadline, "pool " + p.poolId() + " did not fail and close");
            Thread.sleep(2);
        }
        return p.closeWithReport();
    }

    /** Two C children that finalize for 3 s while beating, under a 1 s no-progress window: clean. */
    public static CloseReport progressing(Orchestrator o, String id) {
        Pool p = pool(o, id, settings(Duration.ofSeconds(1)))
                .group("slow", 2, ChildSpec.cDemo().withEnv(DemoBehaviour.TEARDOWN_MILLIS, "3000")).start();
        return p.closeWithReport();
    }

    /** The same teardown under a fixed 1 s budget: FINALIZING survivors; once they exit, a retry reaps them. */
    public static List<CloseReport> finalizingThenRetry(Orchestrator o, String id) throws Exception {
        CloseSettings fixed = CloseSettings.builder().fixedBudget(Duration.ofSeconds(1)).build();
        Pool p = pool(o, id, fixed).group("slow", 2, ChildSpec.cDemo().withEnv(DemoBehaviour.TEARDOWN_MILLIS, "3000"))
                .start();
        CloseReport failed = closeExpectingFailure(p);
        awaitExit(p.children());
        return List.of(failed, p.closeWithReport());
    }

    /**
     * A Java child stuck in a control handler under LEAK: STUCK_IN_HANDLER state=CONTROL_REQUEST, left
     * alive with its mailbox; the gate opens, it exits, and a retry reaps it.
     */
    public static List<CloseReport> notObservedLeakedThenRetried(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, settings(Duration.ofSeconds(1)))
                .group("gated", 1, ChildSpec.java(GateControlHandler.class.getName()))
                .group("chips", 1, ChildSpec.cDemo()).start();
        PoolChild stuck = p.child("gated", 0);
        p.sendControl("gated", 0, DemoHandler.OP_ECHO, 1);
        awaitInsideHandler(stuck);
        CloseReport failed = closeExpectingFailure(p);
        check(ProcessTree.running(stuck.pid()), "leaked survivor pid=" + stuck.pid() + " should still run");
        check(o.mailboxes().lookup(stuck.mailbox().id()).isPresent(), "leaked survivor lost its mailbox");
        check(!stuck.mailboxReleased(), "leaked survivor's mailbox released");
        stuck.mailbox().setGate(1);
        awaitExit(List.of(stuck));
        return List.of(failed, p.closeWithReport());
    }

    /** A C child stuck in a control handler under TERM_THEN_KILL: STUCK_IN_HANDLER, then killed by SIGTERM. */
    public static CloseReport notObservedEscalated(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, termThenKill(Duration.ofSeconds(1)))
                .group("gated", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1")).start();
        p.sendControl("gated", 0, DemoHandler.OP_ECHO, 1);
        awaitInsideHandler(p.child("gated", 0));
        return closeExpectingFailure(p);
    }

    /** A SIGSTOPped C child: STOPPED, then SIGKILLed (SIGTERM stays pending on a stopped process). */
    public static CloseReport stopped(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, termThenKill(Duration.ofMillis(700))).group("chips", 2, ChildSpec.cDemo()).start();
        p.child("chips", 1).process().signal(SIGSTOP);
        return closeExpectingFailure(p);
    }

    /**
     * The upstream race on a LEGACY pool: SHUTDOWN is written into the state word while the child is
     * in a control handler; the handler's unconditional CONTROL_DONE erases it. NOT_DELIVERED, naming
     * CONTROL_DONE and its writer; then killed.
     */
    public static CloseReport notDeliveredLegacy(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, termThenKill(Duration.ofSeconds(1))).protocolMode(ProtocolMode.LEGACY)
                .group("gated", 1, ChildSpec.cDemo().withEnv(DemoBehaviour.GATE, "1")).start();
        PoolChild c = p.child("gated", 0);
        p.sendControl("gated", 0, DemoHandler.OP_ECHO, 1);
        awaitInsideHandler(c);
        CompletableFuture<CloseReport> close = CompletableFuture.supplyAsync(() -> closeExpectingFailure(p));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.mailbox().state() != MailboxState.SHUTDOWN) {
            check(System.nanoTime() < deadline, "legacy SHUTDOWN never appeared in the state word");
            Thread.sleep(1);
        }
        c.mailbox().setGate(1); // the handler returns and stores CONTROL_DONE over SHUTDOWN
        return close.get(30, TimeUnit.SECONDS);
    }

    /** A C child that acknowledges shutdown and then finalizes without beating: WEDGED, then killed. */
    public static CloseReport wedged(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, termThenKill(Duration.ofSeconds(1))).group("mute", 1, ChildSpec.cDemo()
                .withEnv(DemoBehaviour.TEARDOWN_MILLIS, "5000").withEnv(DemoBehaviour.TEARDOWN_BEAT, "0")).start();
        return closeExpectingFailure(p);
    }

    /** {@code pools} pools of {@code children} C children each, all closed at the same moment. */
    public static List<CloseReport> concurrent(Orchestrator o, String prefix, int pools, int children) throws Exception {
        List<Pool> started = new ArrayList<>();
        for (int i = 0; i < pools; i++) {
            started.add(pool(o, prefix + i, settings(Duration.ofSeconds(3))).group("chips", children, ChildSpec.cDemo())
                    .start());
        }
        List<CompletableFuture<CloseReport>> closes = new ArrayList<>();
        for (Pool p : started) {
            CompletableFuture<CloseReport> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    f.complete(p.closeWithReport());
                } catch (Throwable e) {
                    f.completeExceptionally(e);
                }
            }, "close-" + p.poolId());
            t.start();
            closes.add(f);
        }
        List<CloseReport> reports = new ArrayList<>();
        for (CompletableFuture<CloseReport> f : closes) {
            reports.add(f.get(60, TimeUnit.SECONDS));
        }
        return reports;
    }

    /** Closes {@code p}, which must fail; returns the failed report. */
    public static CloseReport closeExpectingFailure(Pool p) {
        try {
            CloseReport r = p.closeWithReport();
            throw new IllegalStateException("pool=" + p.poolId() + " closed cleanly, a failure was expected: " + r.toJson());
        } catch (CloseFailedException e) {
            return e.report();
        }
    }

    /**
     * Waits until {@code c} is inside a command handler that does not beat (a gated one): with a command in its
     * mailbox the serve loop never sleeps on its doorbell and beats every iteration, so a heartbeat that stands
     * still for 100 ms means the loop is not running. Closing earlier could let the loop see shutdown before the command.
     */
    public static void awaitInsideHandler(PoolChild c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            long beat = c.mailbox().heartbeat();
            Thread.sleep(100);
            // Inside: the command is still unanswered, the child is awake (a child still asleep on its doorbell, not yet
            // woken by the command's ring, also stops beating: under load that took it for "inside", and the close's
            // shutdown then reached it before the command did), and it has not beaten for 100 ms.
            int state = c.mailbox().state();
            if (c.mailbox().heartbeat() == beat && !c.mailbox().asleep()
                    && (state == MailboxState.CONTROL_REQUEST || state == MailboxState.TASK_READY)) {
                return;
            }
            check(System.nanoTime() < deadline, "pid=" + c.pid() + " never entered its command handler");
        }
    }

    static void awaitExit(List<PoolChild> children) throws Exception {
        for (PoolChild c : children) {
            c.exit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException("scenario precondition failed: " + message);
        }
    }
}
