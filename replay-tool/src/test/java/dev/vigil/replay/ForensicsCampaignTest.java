package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.child.demo.GateControlHandler;
import dev.vigil.child.demo.IgnoreShutdownHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.JournalScenarios;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.contain.ContainmentSettings;
import dev.vigil.journal.CloseEndedByOrchestratorDeath;
import dev.vigil.journal.JournalEvent;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.ForkingPoolHolderMain;
import dev.vigil.pool.JournalChecks;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.recovery.CrashRecovery;
import dev.vigil.spawn.Redirect;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The forensics campaign: every survivor class constructed on real processes (C, Java and plain executables, and a
 * real orchestrator killed mid-close), each checked to be named the expected class by the live report
 * ({@code CloseReport.failureClasses}, or the recovery for a dead orchestrator) and by the replay of the journal
 * ({@code CloseVerdict.failureClasses}). Writes its table into docs/REPLAY.md between the campaign markers.
 * Bounded: about a minute on an idle machine (windows of 0.7-1 s, grace 0.3-0.5 s, stacks captured before kills).
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class ForensicsCampaignTest {
    static final String BEGIN = "<!-- campaign:begin -->";
    static final String END = "<!-- campaign:end -->";

    @TempDir
    Path tmp;

    record Row(String construction, String expected, String live, String replay) {
        boolean matches() {
            return live.equals(expected) && replay.equals(expected);
        }
    }

    private static CloseSettings killAfter(Duration window) {
        return CloseSettings.builder().window(window).escalation(EscalationPolicy.TERM_THEN_KILL)
                .grace(Duration.ofMillis(500)).build();
    }

    private static Pool.Builder pool(Orchestrator o, String id, CloseSettings s) {
        return Pool.builder(o, id).closeSettings(s).childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(60));
    }

    /** The distinct classes of a list of {@code pid CLASS} entries, joined by '+'. */
    private static String classes(List<String> entries) {
        TreeSet<String> s = new TreeSet<>();
        for (String e : entries) {
            s.add(e.substring(e.indexOf(' ') + 1));
        }
        return s.isEmpty() ? "none" : String.join("+", s);
    }

    private static String replayed(Path journal, long closeId) {
        return classes(CloseVerdict.failureClasses(CloseLookup.rebuild(journal, closeId).close()));
    }

    @Test
    void everySurvivorClassIsNamedTheSameLiveAndInTheReplay() throws Exception {
        Path journal = tmp.resolve("journal");
        List<Object[]> done = new ArrayList<>();
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            List<Object[]> cases = new ArrayList<>();
            cases.add(new Object[] {"C child, legacy protocol: SHUTDOWN stored while a gated control handler runs, the "
                    + "handler's CONTROL_DONE erases it", "NOT_DELIVERED",
                (Callable<CloseReport>) () -> JournalScenarios.notDeliveredLegacy(o, "lost-update")});
            cases.add(new Object[] {"C child inside a control handler that neither returns nor beats", "STUCK_IN_HANDLER",
                (Callable<CloseReport>) () -> JournalScenarios.notObservedEscalated(o, "stuck-c")});
            cases.add(new Object[] {"Java child inside a control handler that neither returns nor beats",
                "STUCK_IN_HANDLER", (Callable<CloseReport>) () -> stuck(o, "stuck-java",
                        ChildSpec.java(GateControlHandler.class.getName()))});
            cases.add(new Object[] {"C child idle in its loop, never reading the shutdown word", "NOT_OBSERVED",
                (Callable<CloseReport>) () -> JournalScenarios.closeExpectingFailure(pool(o, "ignores-c",
                        killAfter(Duration.ofMillis(700))).group("chips", 1, ChildSpec.cDemo()
                                .withEnv(DemoBehaviour.IGNORE_SHUTDOWN, "1")).start())});
            cases.add(new Object[] {"Java child idle, its handler ignoring shutdown", "NOT_OBSERVED",
                (Callable<CloseReport>) () -> JournalScenarios.closeExpectingFailure(pool(o, "ignores-java",
                        killAfter(Duration.ofMillis(700))).group("java", 1,
                                ChildSpec.java(IgnoreShutdownHandler.class.getName())).start())});
            cases.add(new Object[] {"plain executable trapping its stop signal (SIGTERM)", "NOT_OBSERVED",
                (Callable<CloseReport>) () -> trapsTerm(o, "ignores-exec")});
            cases.add(new Object[] {"C child stopped by SIGSTOP", "STOPPED",
                (Callable<CloseReport>) () -> JournalScenarios.stopped(o, "stopped-c")});
            cases.add(new Object[] {"plain executable stopping itself again when continued (SIGSTOP), ignoring SIGTERM", "STOPPED",
                (Callable<CloseReport>) () -> stoppedExec(o, "stopped-exec")});
            cases.add(new Object[] {"C child acked, cleaning up 3 s while beating, under a fixed 1 s budget",
                "FINALIZING", (Callable<CloseReport>) () -> JournalScenarios.finalizingThenRetry(o, "finalizing").get(0)});
            cases.add(new Object[] {"C child acked, then 5 s of clean-up without a beat", "WEDGED",
                (Callable<CloseReport>) () -> JournalScenarios.wedged(o, "wedged-c")});
            cases.add(new Object[] {"Java child acked, then 5 s of clean-up without a beat", "WEDGED",
                (Callable<CloseReport>) () -> JournalScenarios.closeExpectingFailure(pool(o, "wedged-java",
                        killAfter(Duration.ofSeconds(1))).group("java", 1, ChildSpec.java(DemoHandler.class.getName())
                                .withEnv(DemoBehaviour.TEARDOWN_MILLIS, "5000").withEnv(DemoBehaviour.TEARDOWN_BEAT, "0"))
                        .start())});
            for (Object[] c : cases) {
                @SuppressWarnings("unchecked")
                CloseReport r = ((Callable<CloseReport>) c[2]).call();
                done.add(new Object[] {c[0], c[1], r, null});
            }
            descendants(o, done);
            o.journal().writer().flush();
        }
        List<Row> rows = new ArrayList<>();
        for (Object[] d : done) {
            CloseReport r = (CloseReport) d[2];
            rows.add(new Row((String) d[0], (String) d[1], d[3] != null ? (String) d[3] : classes(r.failureClasses()),
                    replayed(journal, r.closeId())));
        }
        rows.add(orchestratorDied());
        String table = table(rows);
        System.out.println(table);
        writeIntoDocs(table);
        for (Row row : rows) {
            if (row.expected().equals("DESCENDANTS_LEFT") && row.live().startsWith("(")) {
                continue; // no cgroup: nothing can see a setsid daemon; the row says so, nothing to compare
            }
            assertTrue(row.matches(), "campaign row: " + row);
        }
    }

    private static CloseReport stuck(Orchestrator o, String id, ChildSpec spec) throws Exception {
        Pool p = pool(o, id, killAfter(Duration.ofMillis(700))).group("g", 1, spec).start();
        p.sendControl("g", 0, DemoHandler.OP_ECHO, 1);
        JournalScenarios.awaitInsideHandler(p.child("g", 0));
        return JournalScenarios.closeExpectingFailure(p);
    }

    private CloseReport trapsTerm(Orchestrator o, String id) throws Exception {
        Path armed = tmp.resolve(id + ".armed");
        Pool p = pool(o, id, killAfter(Duration.ofMillis(700))).group("plain", 1, ChildSpec.exec("sh", "-c",
                "trap '' TERM; : > \"$ARMED\"; while :; do sleep 0.05; done").withEnv("ARMED", armed.toString())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(armed)) {
            assertTrue(System.nanoTime() < deadline, "the plain child never armed its TERM trap");
            Thread.sleep(5);
        }
        return JournalScenarios.closeExpectingFailure(p);
    }

    /**
     * A plain {@code sh} that ignores SIGTERM and stops itself again whenever it is continued: the close's SIGCONT after
     * its stop signal (which lets a merely stopped one exit on it) does not keep it running.
     */
    private static CloseReport stoppedExec(Orchestrator o, String id) throws Exception {
        Pool p = pool(o, id, killAfter(Duration.ofMillis(700))).group("plain", 1,
                ChildSpec.exec("sh", "-c", "trap '' TERM; while :; do kill -STOP $$; done")).start();
        int pid = p.child("plain", 0).pid();
        awaitProc(pid, "stat", s -> s.substring(s.lastIndexOf(')') + 2).startsWith("T"), "to stop");
        return JournalScenarios.closeExpectingFailure(p);
    }

    private static void awaitProc(int pid, String file, java.util.function.Predicate<String> done, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.test(Files.readString(Path.of("/proc", Integer.toString(pid), file)))) {
            assertTrue(System.nanoTime() < deadline, "pid " + pid + " never came " + what);
            Thread.sleep(5);
        }
    }

    /**
     * A plain child that starts a daemon in a new session and exits 0: its close is clean for the direct child,
     * and fails only through the stray the close finds in the pool's container (StrayFound). Where no container can
     * hold it (the process-group fallback: setsid leaves the pool's groups) the row says so instead of a class.
     */
    private void descendants(Orchestrator o, List<Object[]> done) throws Exception {
        Path started = tmp.resolve("daemon.pid");
        Pool p = pool(o, "descendants", killAfter(Duration.ofMillis(700))).group("forker", 1, ChildSpec.exec("sh", "-c",
                "setsid sh -c 'echo $$ > \"$PIDFILE\"; exec sleep 600' </dev/null >/dev/null 2>&1 & "
                        + "while [ ! -s \"$PIDFILE\" ]; do sleep 0.01; done; sleep 600")
                .withEnv("PIDFILE", started.toString())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(started) || Files.size(started) == 0) {
            assertTrue(System.nanoTime() < deadline, "the daemon never started");
            Thread.sleep(5);
        }
        int daemon = Integer.parseInt(Files.readString(started).trim());
        CloseReport r;
        try {
            r = p.closeWithReport();
        } catch (dev.vigil.close.CloseFailedException e) {
            r = e.report();
        } finally {
            ProcessHandle.of(daemon).ifPresent(ProcessHandle::destroyForcibly);
        }
        String construction = "plain executable that leaves a setsid daemon behind (a double fork) and is stopped";
        done.add(new Object[] {construction, "DESCENDANTS_LEFT", r, r.strays().isEmpty()
                ? "(no StrayFound: no container scan saw the daemon, e.g. the process-group fallback, where a setsid daemon "
                        + "leaves the pool's groups)" : null});
    }

    /** A real orchestrator process SIGKILLed inside a close; the next one on its journal recovers. */
    private Row orchestratorDied() throws Exception {
        Path journal = tmp.resolve("died");
        String cp = Path.of(Orchestrator.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Path.of(ForkingPoolHolderMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()) + ":"
                + Files.readString(Path.of(System.getProperty("vigil.testClasspathFile"))).trim();
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "@" + System.getProperty("vigil.jvmOptionsFile"), "-cp", cp,
                "-Dvigil.native.dir=" + System.getProperty("vigil.native.dir"), ForkingPoolHolderMain.class.getName(),
                journal.toString(), "pgroup", "campaign-" + System.nanoTime(), "guardian-on");
        // The holder is an orchestrator under test, not a pool child.
        Process holder = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            BufferedReader lines = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            StringBuilder seen = new StringBuilder();
            for (String line; (line = lines.readLine()) != null; ) {
                seen.append(line).append('\n');
                if (line.equals("CLOSING")) {
                    break;
                }
            }
            assertTrue(seen.toString().contains("CLOSING"), "holder never began its close: " + seen);
            Thread.sleep(300); // inside the close's reap: its shell children ignore SIGTERM for the 30 s window
            holder.destroyForcibly();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS));
        } finally {
            holder.destroyForcibly();
        }
        String live;
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).containment(ContainmentSettings.processGroups())
                .closeSettings(CloseSettings.defaults()).open()) {
            CrashRecovery.Outcome r = o.recovery().orElseThrow(() -> new AssertionError("nothing recovered"));
            live = r.closesEnded() > 0 && r.describe().contains("ORCHESTRATOR_DIED") ? "ORCHESTRATOR_DIED"
                    : "(recovery: " + r.describe() + ")";
            o.journal().writer().flush();
        }
        long closeId = JournalChecks.readAll(journal).stream().filter(e -> e instanceof CloseEndedByOrchestratorDeath)
                .mapToLong(JournalEvent::closeId).findFirst().orElseThrow(() -> new AssertionError(
                        "no CloseEndedByOrchestratorDeath journaled"));
        return new Row("orchestrator SIGKILLed inside a close (a real orchestrator process; the next one recovers)",
                "ORCHESTRATOR_DIED", live, replayed(journal, closeId));
    }

    static String table(List<Row> rows) {
        StringBuilder sb = new StringBuilder();
        sb.append("| construction | expected | live | replay | |\n|---|---|---|---|---|\n");
        for (Row r : rows) {
            sb.append("| ").append(r.construction()).append(" | `").append(r.expected()).append("` | ")
                    .append(r.live().startsWith("(") ? r.live() : "`" + r.live() + "`").append(" | `").append(r.replay())
                    .append("` | ").append(r.matches() ? "match" : r.live().startsWith("(") ? "pending" : "**differs**")
                    .append(" |\n");
        }
        return sb.toString();
    }

    private static void writeIntoDocs(String table) throws Exception {
        Path doc = Path.of(System.getProperty("vigil.root", "."), "docs", "REPLAY.md");
        if (!Files.isWritable(doc)) {
            return;
        }
        String text = Files.readString(doc);
        int b = text.indexOf(BEGIN);
        int e = text.indexOf(END);
        assertTrue(b >= 0 && e > b, "docs/REPLAY.md lacks the campaign markers " + BEGIN + " / " + END);
        String updated = text.substring(0, b + BEGIN.length()) + "\n" + table + text.substring(e);
        if (!updated.equals(text)) {
            Files.writeString(doc, updated);
        }
    }
}
