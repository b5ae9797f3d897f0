package dev.vigil.cli;

import dev.vigil.journal.JournalException;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseFailedException;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.pool.PoolChild;
import dev.vigil.pool.PoolStartException;

/**
 * Runs a {@link RunSpec}: per cycle, start every pool, drive its control workload, close all pools at
 * once, print what each close did; at the end the reap-latency table and the replay commands.
 * A stop request (Ctrl-C) closes whatever is open, journaled, before returning.
 */
public final class PoolRunner implements Stoppable {
    /** Exit code: every close clean. */
    public static final int CLEAN = 0;
    /** Exit code: some close failed (its report was printed). */
    public static final int CLOSE_FAILED = 1;
    /** Exit code when stopped by Ctrl-C: 128 + SIGINT (another signal gives 128 + its number). */
    public static final int INTERRUPTED = 130;
    /**
     * How long the pools of one cycle may take to start before every start is stopped (and rolled back), or twice the
     * longest {@code start.timeoutMs} of the spec when that is longer ({@link #startBound}: a child may take all of its own).
     */
    static final Duration START_BOUND = Duration.ofSeconds(120);
    /** How long a stopped start may take to roll back what it spawned. */
    static final Duration START_STOP_BOUND = Duration.ofSeconds(60);

    private final RunSpec spec;
    /** The spec's close settings, built once for every close of the run. */
    private final CloseSettings settings;
    private final RunHooks hooks;
    private final PrintStream out;
    private final List<Pool> open = new ArrayList<>();
    private final List<CloseReport> reports = new ArrayList<>();
    /** Why the run fails, counted by reason: its last word before the replay hints. */
    private final RunVerdict verdict = new RunVerdict();
    /**
     * Runs the starts, workloads and closes that go on at once. Not the common pool: it has one
     * thread on a two-core machine, and its tasks block, so "closing 4 pools at once" would close
     * them one after another.
     */
    private final ExecutorService workers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "vigil-run");
        t.setDaemon(true);
        return t;
    });
    private final Object stopLock = new Object();
    private int stopRequests;
    private volatile boolean stopRequested;
    private volatile int stopSignal = 2;
    private volatile String stopOrigin;
    private volatile String escalateOrigin;
    /** The run's orchestrator while it is open, for stop requests from other threads. */
    private volatile Orchestrator orchestrator;
    private JournalShipping.Target shipTo;
    /** How often a close without a report is said to be still running. */
    private Duration stillRunningNote = Duration.ofMinutes(1);

    public PoolRunner(RunSpec spec, RunHooks hooks, PrintStream out) {
        this.spec = spec;
        this.settings = closeSettings(spec.close());
        this.hooks = hooks;
        this.out = out;
    }

    /** How often a close that has not reported yet is said to be still running (tests shorten it). */
    void stillRunningNote(Duration every) {
        this.stillRunningNote = every;
    }

    /** Ships the journal to Kafka while the run runs (a shipper process of its own); null = do not ship. */
    void shipTo(JournalShipping.Target target) {
        this.shipTo = target;
    }

    /**
     * A stop request (Ctrl-C, SIGTERM), safe from any thread, never blocks. The first asks a running {@link #run} to
     * stop spawning at once, close every open pool (and what a start in progress spawned), journaled, and return
     * 128 + {@code signal}. Every later one escalates every close in progress, and every close still to come, at
     * once (SIGKILL to the survivors, journaled as EscalateNowRequested): as {@code docker stop} after its grace.
     *
     * @param origin who asks, as journaled ({@code SIGINT}, {@code SIGTERM})
     * @return the number of stop requests so far, this one included (1 = the first)
     */
    @Override
    public int requestStop(int signal, String origin) {
        int n;
        synchronized (stopLock) {
            n = ++stopRequests;
            if (n == 1) {
                stopSignal = signal;
                stopOrigin = origin;
                stopRequested = true;
            } else if (escalateOrigin == null) {
                escalateOrigin = origin;
            }
        }
        applyStop();
        return n;
    }

    private int stopRequestCount() {
        synchronized (stopLock) {
            return stopRequests;
        }
    }

    /** Passes the stop requests so far to the orchestrator, if it is open (again once it opens). */
    private void applyStop() {
        Orchestrator o = orchestrator;
        if (o == null) {
            return;
        }
        if (stopRequested) {
            o.stopStarts(stopOrigin + " received");
        }
        String escalate = escalateOrigin;
        if (escalate != null) {
            o.closeEngine().escalateAll(escalate);
        }
    }

    /** Every close report of this run, in the order the closes completed. */
    public synchronized List<CloseReport> reports() {
        return List.copyOf(reports);
    }

    /** Runs every cycle; returns {@link #CLEAN}, {@link #CLOSE_FAILED} or 128 + the stop signal. */
    public int run() {
        Path journal = Path.of(spec.journalDir()).toAbsolutePath().normalize();
        ProtocolMode mode = spec.protocol().equals("legacy") ? ProtocolMode.LEGACY : ProtocolMode.STICKY;
        if (mode == ProtocolMode.LEGACY) {
            out.println("protocol=legacy: REPRODUCTION MODE, the pre-Vigil protocol whose shutdown request can be lost");
        }
        dev.vigil.journal.JournalWriter journalWriter;
        JournalShipping shipping = null;
        try (Orchestrator orchestrator = Orchestrator.builder().journalDir(journal).closeSettings(settings)
                .maxMailboxes(Math.max(256, spec.totalChildren() + 64)).open()) {
            this.orchestrator = orchestrator;
            applyStop(); // a stop that came while it opened
            out.println(containmentLine(orchestrator.containment()));
            orchestrator.recovery().ifPresent(r -> out.println(r.describe()));
            setAside = orchestrator.journalSetAside().orElse(null);
            shipping = shipTo == null ? null : JournalShipping.start(journal, shipTo, out);
            for (int cycle = 1; cycle <= spec.cycles() && !stopRequested; cycle++) {
                runCycle(orchestrator, mode, cycle);
            }
            closeOpenPools();
            journalWriter = orchestrator.journal().writer();
            if (settings.escalation() == EscalationPolicy.LEAK) {
                // leak means kept: no further close; what the closes kept outlives this run, listed with its reaper
                printKept(orchestrator.leave(), journal, out);
            }
        } finally {
            this.orchestrator = null;
            workers.shutdown();
            if (shipping != null) {
                int stopsBefore = stopRequestCount();
                shipping.finish(out, () -> stopRequestCount() > stopsBefore);
            }
        }
        // Read after the orchestrator closed: its close flushed the journal, so the count is final. A run whose
        // journal stopped cannot prove what happened after that point: it fails, whatever its closes did.
        Optional<dev.vigil.journal.JournalGap> gap = journalWriter.gap();
        if (gap.isPresent()) {
            verdict.count("journal incomplete (events not written)");
        }
        String dirLost = journalWriter.dirLost();
        if (dirLost != null) {
            verdict.count("journal dir lost during the run");
        }
        LatencyTable.print(reports(), out);
        if (!stopRequested) {
            out.println(verdict.line());
        }
        printReplayHints(journal);
        gap.ifPresent(g -> out.println("JOURNAL INCOMPLETE: " + g.describe()));
        if (dirLost != null) {
            out.println("JOURNAL LOST: " + dirLost);
        }
        if (stopRequested) {
            out.println("stopped: every open pool was closed" + (gap.isPresent() ? " (the journal is incomplete)"
                    : dirLost != null ? " (the journal dir was lost)" : " and journaled"));
            return 128 + stopSignal;
        }
        return verdict.failed() ? CLOSE_FAILED : CLEAN;
    }

    /** Each kept pool and process (pid, cgroup, command), and the command that ends them, on {@code out}. */
    static void printKept(List<Orchestrator.KeptPool> kept, Path journal, PrintStream out) {
        if (kept.isEmpty()) {
            return;
        }
        int processes = kept.stream().mapToInt(k -> k.processes().size()).sum();
        out.printf(Locale.ROOT, "kept running (escalation: leak): %d process(es) of %d pool(s), left with their mailboxes"
                + " (a mailbox child still in its loop ends itself, exit 4, once it sees this run gone):%n", processes,
                kept.size());
        for (Orchestrator.KeptPool k : kept) {
            for (dev.vigil.contain.ContainedProcess p : k.processes()) {
                out.printf(Locale.ROOT, "  pool=%s pid=%d %s=%s command=%s%n", k.poolId(), p.pid(),
                        k.cgroup() != null ? "cgroup" : "container", k.container(), p.command());
            }
        }
        out.println("end them with: " + reapCommand(journal)
                + (kept.stream().allMatch(k -> k.cgroup() != null) ? "   (or: echo 1 > <cgroup>/cgroup.kill)" : ""));
    }

    /** One line: which containment this run uses, and for the fallback why and what it cannot guarantee. */
    static String containmentLine(dev.vigil.contain.Containment c) {
        if (c.mode() == dev.vigil.contain.ContainmentMode.CGROUP) {
            return "containment: a cgroup per pool under " + c.root();
        }
        return "containment: process groups (FALLBACK: a descendant that calls setsid or daemonizes escapes close and"
                + " crash cleanup), " + c.reason();
    }

    private void runCycle(Orchestrator orchestrator, ProtocolMode mode, int cycle) {
        int children = spec.pools().stream().flatMap(p -> p.groups().stream()).mapToInt(RunSpec.Group::children).sum();
        out.printf(Locale.ROOT, "cycle %d/%d: starting %d pool(s), %d children%n", cycle, spec.cycles(), spec.pools().size(),
                children);
        long t0 = System.nanoTime();
        List<CompletableFuture<Pool>> starts = new ArrayList<>();
        for (RunSpec.PoolEntry entry : spec.pools()) {
            starts.add(CompletableFuture.supplyAsync(() -> startPool(orchestrator, mode, entry, cycle), workers));
        }
        boolean startFailed = false;
        Duration startBound = startBound(spec);
        long startDeadline = System.nanoTime() + startBound.toNanos();
        for (CompletableFuture<Pool> f : starts) {
            try {
                Pool p = awaitStart(orchestrator, f, startDeadline, startBound);
                synchronized (this) {
                    open.add(p);
                }
            } catch (ExecutionException | TimeoutException | InterruptedException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                out.println("  start failed: " + describe(cause));
                if (cause instanceof PoolStartException pse && pse.rollback() != null) {
                    // The rollback close of what had started is a close like any other: journaled, counted.
                    synchronized (this) {
                        reports.add(pse.rollback());
                    }
                    out.println("  rollback " + summary(pse.rollback()));
                }
                verdict.count("pool start(s) failed");
                startFailed = true;
            }
        }
        if (startFailed && stopRequested) {
            out.printf(Locale.ROOT, "  start stopped after %.2f s (%s received): what had started was closed%n",
                    seconds(System.nanoTime() - t0), stopOrigin);
        } else if (startFailed) {
            out.printf(Locale.ROOT, "  not ready: a pool failed to start after %.2f s%n", seconds(System.nanoTime() - t0));
        } else {
            out.printf(Locale.ROOT, "  ready in %.2f s%n", seconds(System.nanoTime() - t0));
        }
        if (!stopRequested && !startFailed) {
            driveWorkload(cycle);
        }
        reportChildrenGone();
        out.printf(Locale.ROOT, "  closing %d pool(s) at once%n", openCount());
        int before = reports().size();
        closeOpenPools();
        List<CloseReport> all = reports();
        hooks.cycleClosed(cycle, all.subList(before, all.size()), out);
    }

    /**
     * Waits for one pool's start. Past {@code deadline} (or on an interrupt) every start in progress is stopped, so
     * it rolls back what it spawned (journaled) and ends within {@link #START_STOP_BOUND}: a start is never left
     * running behind the run.
     */
    private static Pool awaitStart(Orchestrator orchestrator, CompletableFuture<Pool> f, long deadline, Duration bound)
            throws ExecutionException, TimeoutException, InterruptedException {
        try {
            return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            orchestrator.stopStarts("not started within " + bound.toSeconds() + " s");
            return f.get(START_STOP_BOUND.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static String describe(Throwable e) {
        if (e instanceof TimeoutException) {
            return "a start did not end within " + START_STOP_BOUND.toSeconds() + " s of being stopped";
        }
        return JournalException.plain(e).replace('\n', ' ');
    }

    /**
     * Children that ended before their close (a crash, exit 127 from a missing library...): each named
     * with its exit status. They fail the run; their close reports them with sinceBroadcastNanos 0.
     */
    private void reportChildrenGone() {
        for (Pool p : openPools()) {
            for (String gone : childrenGone(p)) {
                out.println("  " + gone);
                verdict.count("child(ren) exited during the run");
            }
        }
    }

    /** One line per child of {@code p} that ended before its close, with its exit status: they fail a run (and a session). */
    static List<String> childrenGone(Pool p) {
        List<String> gone = new ArrayList<>();
        for (PoolChild c : p.children()) {
            if (p.exitedDuringRun(c) && !c.process().exitStatus().isEmpty()) {
                gone.add("pool=" + p.poolId() + " group=" + c.group() + " child=" + c.index() + " pid=" + c.pid()
                        + " exited during the run: " + c.process().exitStatus().get().describe());
            }
        }
        return gone;
    }

    private Pool startPool(Orchestrator orchestrator, ProtocolMode mode, RunSpec.PoolEntry entry, int cycle) {
        // Children's output never reaches ours: each child writes its own capped, rotated log files (through the shim).
        Pool.Builder b = poolBuilder(orchestrator, mode, entry).childLogs(spec.childLogs().maxBytes(), spec.childLogs().keep());
        for (RunSpec.Group g : entry.groups()) {
            ChildSpec spec = childSpec(g);
            b.group(g.name(), g.children(), i -> hooks.childSpec(cycle, entry.id(), g.name(), i, spec));
        }
        return b.start();
    }

    /** Each pool's workload: sequential controls per mailbox child, children in parallel, then one left in flight. */
    private void driveWorkload(int cycle) {
        List<CompletableFuture<ChildWork>> runs = new ArrayList<>();
        for (Pool p : openPools()) {
            RunSpec.Workload w = workload(p);
            for (PoolChild c : p.children()) {
                if (c.hasMailbox() && (w.controls() > 0 || hooks.inFlight(cycle, p.poolId(), c.group(), c.index(), w) != null)) {
                    RunHooks.InFlight inFlight = hooks.inFlight(cycle, p.poolId(), c.group(), c.index(), w);
                    runs.add(CompletableFuture.supplyAsync(() -> controls(p, c, w, inFlight), workers));
                }
            }
        }
        int complete = 0;
        long requested = 0;
        long answered = 0;
        long wrong = 0;
        for (CompletableFuture<ChildWork> r : runs) {
            ChildWork work = r.join();
            requested += work.requested();
            answered += work.answered();
            wrong += work.wrong();
            if (work.wrong() > 0) {
                out.println("  workload: " + work.who() + " answered " + work.wrong() + " of " + work.answered()
                        + " controls wrong (first: " + work.firstWrong() + ")");
                verdict.count("child(ren) answered controls wrong");
            }
            if (work.error() != null) {
                out.println("  workload: " + work.who() + " " + work.error());
                verdict.count("child(ren) failed their workload");
            }
            complete += work.error() == null && work.wrong() == 0 && work.answered() == work.requested() ? 1 : 0;
        }
        if (runs.isEmpty()) {
            return;
        }
        if (stopRequested) {
            out.printf(Locale.ROOT, "  workload stopped: %d of %d controls answered (%d wrong); %d/%d children answered all"
                    + " of theirs%n", answered, requested, wrong, complete, runs.size());
        } else {
            out.printf(Locale.ROOT, "  workload: %d/%d children answered every control right (%d of %d answered, %d wrong)%n",
                    complete, runs.size(), answered, requested, wrong);
        }
    }

    private RunSpec.Workload workload(Pool p) {
        return spec.pools().stream().filter(e -> e.id().equals(p.poolId())).findFirst().orElseThrow().workload();
    }

    /** What one child's workload got back: answers, wrong answers (an echo must return its argument), the first error. */
    record ChildWork(String who, int requested, int answered, int wrong, String firstWrong, String error) {
    }

    private ChildWork controls(Pool p, PoolChild c, RunSpec.Workload w, RunHooks.InFlight inFlight) {
        Duration timeout = Duration.ofMillis(w.controlTimeoutMs());
        String who = "pool=" + p.poolId() + " group=" + c.group() + " child=" + c.index() + " pid=" + c.pid();
        int answered = 0;
        int wrong = 0;
        String firstWrong = null;
        String error = null;
        try {
            for (int i = 0; i < w.controls() && !stopRequested; i++) {
                var result = p.control(c.group(), c.index(), DemoHandler.OP_ECHO, i, timeout);
                if (!result.succeeded()) {
                    error = "control " + i + " failed: " + result.errorText();
                    break;
                }
                answered++;
                if (result.value() != i) {
                    wrong++;
                    if (firstWrong == null) {
                        firstWrong = "echo " + i + " answered " + result.value();
                    }
                }
            }
            if (inFlight != null && error == null && !stopRequested) {
                p.sendControl(c.group(), c.index(), inFlight.opcode(), inFlight.argument());
                // the close comes only once the child is inside the in-flight control's handler (IN_FLIGHT_SETTLE of its
                // IN_FLIGHT_MILLIS run): a close faster than the child's pick-up replaced the request before the child took
                // it, and the legacy demo then reproduced nothing (a clean-clone CI run: every close CLEAN, exit 0)
                Thread.sleep(IN_FLIGHT_SETTLE_MILLIS);
            }
        } catch (RuntimeException e) {
            error = "after " + answered + " answers: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            error = "after " + answered + " answers: interrupted";
        }
        return new ChildWork(who, w.controls(), answered, wrong, firstWrong, error);
    }

    /** How long a control left in flight at the close runs before the close starts (its handler runs far longer). */
    private static final long IN_FLIGHT_SETTLE_MILLIS = 250;

    /** Closes every open pool concurrently; prints one line per close and the diagnosis of failures. */
    private void closeOpenPools() {
        List<Pool> pools = openPools();
        List<CompletableFuture<CloseReport>> closes = new ArrayList<>();
        for (Pool p : pools) {
            closes.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return p.closeWithReport();
                } catch (CloseFailedException e) {
                    return e.report();
                }
            }, workers));
        }
        for (int i = 0; i < pools.size(); i++) {
            CloseReport r;
            try {
                r = awaitReport(pools.get(i), closes.get(i));
            } catch (ExecutionException | InterruptedException e) {
                out.println("  pool=" + pools.get(i).poolId() + " close did not finish: " + (e instanceof InterruptedException
                        ? "interrupted" : describe(e.getCause())));
                verdict.count("close(s) did not finish");
                continue;
            }
            synchronized (this) {
                reports.add(r);
                // leak means kept: a pool whose close kept survivors is never closed again (not by the next cycle's
                // close, not at the end of the run); the run ends listing them
                if (pools.get(i).trackedChildren().isEmpty() || settings.escalation() == EscalationPolicy.LEAK) {
                    open.remove(pools.get(i));
                }
            }
            if (!r.isClean()) {
                verdict.count("close(s) failed");
            }
            out.println("  " + summary(r));
            Optional<String> failure = pools.get(i).failure();
            if (failure.isPresent()) {
                out.println("    started by the pool's failure: " + failure.get());
                verdict.count("pool(s) failed during the run");
            }
            if (r.journalGap() != null) {
                out.println("    " + r.journalGap());
            }
            if (!r.isClean()) {
                out.println(underSummary(r.describeFailures()));
            }
            String tails = r.describeStderrTails();
            if (!tails.isEmpty()) {
                out.println(underSummary(tails));
            }
        }
    }

    /**
     * A close's report, however long the close takes ({@link CloseReportWait}). Before, the run gave up after 10 minutes,
     * printed "close did not finish", gave up again at the run's end, then waited silently in the orchestrator's close for
     * the same close (a child beating in its clean-up under no hard cap: 617 s, until Ctrl-C twice).
     */
    private CloseReport awaitReport(Pool pool, CompletableFuture<CloseReport> close)
            throws ExecutionException, InterruptedException {
        return CloseReportWait.await(pool.poolId(), close, settings, stillRunningNote, out, "  ");
    }

    /**
     * One line per close, its children counted apart: reaped (exited on their own), killed (by
     * escalation), kept (survivors left running); the slowest reap leaves the kills out.
     */
    /**
     * A report block ("\n  outcome=...\n    cause: ...", one entry per child) indented under the close's summary line,
     * every entry alike (stripping the whole block used to take the first entry's indent with its newline).
     */
    static String underSummary(String block) {
        String body = block.startsWith("\n") ? block.substring(1) : block;
        return "  " + body.stripTrailing().replace("\n", "\n  ");
    }

    static String summary(CloseReport r) {
        long reaped = count(r, CloseReport.ChildOutcome.EXITED) + count(r, CloseReport.ChildOutcome.SIGNALED);
        long killed = count(r, CloseReport.ChildOutcome.KILLED_BY_ESCALATION);
        long kept = count(r, CloseReport.ChildOutcome.SURVIVOR);
        double slowest = r.children().stream().filter(c -> c.outcome() != CloseReport.ChildOutcome.KILLED_BY_ESCALATION)
                .mapToLong(CloseReport.Child::sinceBroadcastNanos).max().orElse(0) / 1e9;
        return String.format(Locale.ROOT, "pool=%s close=%d %s reaped=%d/%d killed=%d kept=%d in %.2f s (slowest reap %.2f s)",
                r.poolId(), r.closeId(), r.outcome(), reaped, r.children().size(), killed, kept, seconds(r.durationNanos()),
                Math.max(0, slowest));
    }

    static long count(CloseReport r, CloseReport.ChildOutcome outcome) {
        return r.children().stream().filter(c -> c.outcome() == outcome).count();
    }

    /** The command that ends what a run left on {@code journal} ({@code vigil reap}), as shell words to paste. */
    static String reapCommand(Path journal) {
        return launcher("vigil") + " reap " + ShellWords.quote(journal);
    }

    /** The launcher {@code bin/NAME} of this installation ({@code vigil.root}, set by bin/vigil), as a shell word to paste. */
    private static String launcher(String name) {
        String root = System.getProperty("vigil.root");
        return ShellWords.quote(root == null ? Path.of("bin", name) : Path.of(root, "bin", name));
    }

    /** The damaged journal the orchestrator set aside at its open (null: none), for the report's journal line. */
    private Orchestrator.SetAside setAside;

    private void printReplayHints(Path journal) {
        String replay = launcher("vigil-replay");
        String dir = ShellWords.quote(journal);
        out.println();
        out.println("journal: " + journal + (setAside == null ? "" : " (started fresh: the damaged journal before it was"
                + " set aside as " + setAside.dir() + ", where " + replay + " audit " + ShellWords.quote(setAside.dir())
                + " reads it up to the damage)"));
        out.println("children's output: " + dev.vigil.journal.JournalOwner.sibling(journal, "-logs")
                + "/<pool>/<group>-<index>.out|.err");
        out.println("look closer:");
        out.println("  " + replay + " closes " + dir);
        out.println("  " + replay + " stats " + dir);
        out.println("  " + replay + " audit " + dir);
        List<CloseReport> all = reports();
        CloseReport pick = all.stream().filter(r -> !r.isClean()).findFirst().orElse(all.isEmpty() ? null : all.get(0));
        if (pick != null) {
            out.println("  " + replay + " timeline " + dir + " " + pick.closeId() + " -o close-" + pick.closeId() + ".svg");
            String why = pick.isClean() ? "" : "   # explains the failed close";
            out.println("  " + replay + " show " + dir + " " + pick.closeId() + why);
        }
    }

    static CloseSettings closeSettings(RunSpec.Close c) {
        CloseSettings.Builder b = CloseSettings.builder()
                .window(Duration.ofMillis(c.windowMs()))
                .escalation(EscalationPolicy.parse(c.escalation()))
                .grace(Duration.ofMillis(c.graceMs()))
                .maxParallelCloses(c.parallelCloses());
        if (c.hardCapMs() > 0) {
            b.hardCap(Duration.ofMillis(c.hardCapMs()));
        }
        if (c.fixedBudgetMs() > 0) {
            b.fixedBudget(Duration.ofMillis(c.fixedBudgetMs()));
        }
        return b.build();
    }

    /** {@link #START_BOUND}, or twice the spec's longest {@code start.timeoutMs} when that is longer. */
    static Duration startBound(RunSpec spec) {
        long longest = spec.pools().stream().mapToLong(p -> p.start().timeoutMs()).max().orElse(0);
        return Duration.ofMillis(Math.max(START_BOUND.toMillis(), 2 * longest)); // 2 x 365 days at most: no overflow
    }

    /** A builder of {@code entry}'s pool with what the spec says of it (not its groups nor where its output goes). */
    static Pool.Builder poolBuilder(Orchestrator orchestrator, ProtocolMode mode, RunSpec.PoolEntry entry) {
        return Pool.builder(orchestrator, entry.id()).protocolMode(mode).exitPolicy(entry.onChildExit())
                .startTimeout(Duration.ofMillis(entry.start().timeoutMs())).bootingAtOnce(entry.start().bootingAtOnce());
    }

    static ChildSpec childSpec(RunSpec.Group g) {
        List<String> cmd = g.command();
        String[] args = cmd.size() > 1 ? cmd.subList(1, cmd.size()).toArray(String[]::new) : new String[0];
        ChildSpec s = switch (g.kind()) {
            case "java" -> ChildSpec.java(g.handler() != null ? g.handler() : DemoHandler.class.getName())
                    .withClassPath(g.classPath()).withRuntimeOptions(g.jvmOptions());
            case "python" -> ChildSpec.python(g.handler() != null ? g.handler() : ChildSpec.PYTHON_DEMO_HANDLER)
                    .withClassPath(g.classPath());
            case "c" -> cmd.isEmpty() ? ChildSpec.cDemo() : ChildSpec.c(Path.of(cmd.get(0)), args);
            case "mailbox-exec" -> ChildSpec.mailboxExec(cmd.get(0), args);
            case "exec" -> ChildSpec.exec(cmd.get(0), args);
            default -> throw new IllegalArgumentException("group=" + g.name() + " kind=" + g.kind() + " is unknown");
        };
        return s.withEnv(g.env()).withStopSignal(SignalNames.number(g.stopSignal()));
    }

    private synchronized List<Pool> openPools() {
        return List.copyOf(open);
    }

    private synchronized int openCount() {
        return open.size();
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
