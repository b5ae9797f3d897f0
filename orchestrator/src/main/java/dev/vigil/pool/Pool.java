package dev.vigil.pool;

import dev.vigil.journal.JournalException;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.function.IntFunction;
import java.util.function.Supplier;

import dev.vigil.close.ChildExit;
import dev.vigil.close.CloseEngine;
import dev.vigil.close.CloseEngineFailedException;
import dev.vigil.close.CloseFailedException;
import dev.vigil.close.CloseJfr;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.CloseTarget;
import dev.vigil.close.ClosingChild;
import dev.vigil.close.PoolJournal;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.RestartIntensity;
import dev.vigil.journal.ChildExited;
import dev.vigil.journal.ChildRestarted;
import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.PoolFailed;
import dev.vigil.contain.PoolContainment;
import dev.vigil.journal.ChildSpawned;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.PoolStarted;
import dev.vigil.journal.SpawnFailed;
import dev.vigil.mailbox.CommandResult;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxException;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.child.ChildRuntime;
import dev.vigil.spawn.ChildProcess;
import dev.vigil.spawn.Redirect;
import dev.vigil.spawn.SpawnException;
import dev.vigil.spawn.SpawnRequest;

/**
 * Named groups of child processes started together and closed together.
 *
 * <pre>
 * try (Pool pool = Pool.builder(orchestrator, "p1")
 *         .group("chips", 4, ChildSpec.cDemo())
 *         .group("web", 1, ChildSpec.exec("python3", "-m", "http.server"))
 *         .start()) {
 *     pool.control("chips", 0, 1, 0, Duration.ofSeconds(5));
 * }   // close(): fence > broadcast > reap > diagnose > escalate > release > report
 * </pre>
 *
 * {@link #start} returns once every mailbox child reported INIT_READY (plain executables: once their
 * exec succeeded), or rolls back. {@link #close()} throws {@link CloseFailedException} when a child
 * was not cleanly reaped; survivors stay tracked and a later {@code close()} retries them. Once
 * nothing is tracked, {@code close()} is a no-op. Operations that start after a close began fail
 * with {@link AdmissionClosedException}.
 */
public final class Pool implements AutoCloseable {
    /** Operation names used by the admission fence and the journal. */
    public static final String OP_CONTROL = "control";
    public static final String OP_TASK = "task";
    public static final String OP_SPAWN = "spawn";

    private final Orchestrator orchestrator;
    /** How long close() waits for its events to reach the journal file before returning the report. */
    static final java.time.Duration CLOSE_FLUSH_BOUND = java.time.Duration.ofSeconds(2);
    /** How often a close's caller checks, while it waits, that the close engine's thread is alive. */
    static final long ENGINE_CHECK_MILLIS = 500;
    /** After the close engine failed a close: how long the pool waits for the reaps of the children it killed. */
    static final java.time.Duration KILLED_REAP_BOUND = java.time.Duration.ofSeconds(5);

    private final PoolJournal journal;
    private final String poolId;
    private final ProtocolMode mode;
    private final CloseSettings settings;
    private final Duration startTimeout;
    /**
     * Children a start spawns at once ({@code vigil.spawn.batch}, default 64; docs/SPAWNING.md): their shims' execs,
     * cgroup joins and start-ups overlap ({@link dev.vigil.spawn.Spawner#spawnAll}); bounds the status pipes and pidfds
     * a start holds open before the verdicts. 1 spawns one child after another.
     */
    static final int SPAWN_BATCH = Math.max(1, Integer.getInteger("vigil.spawn.batch", 64));
    /**
     * Children of a runtime that boots (JAVA, PYTHON: an interpreter, then the user's handler) a start lets boot at
     * once by default ({@code vigil.start.booting}, default 8 per CPU; {@link Builder#bootingAtOnce}).
     */
    public static final int BOOTING_AT_ONCE = Math.max(0, Integer.getInteger("vigil.start.booting",
            8 * Runtime.getRuntime().availableProcessors()));
    /** {@link Builder#bootingAtOnce}: 0 for no bound. */
    private final int bootingAtOnce;
    /** {@link Builder#startTimeout} unless set: how long a child has from its spawn to be ready. */
    public static final Duration DEFAULT_START_TIMEOUT = Duration.ofSeconds(30);
    private final Redirect childOutput;
    /** Per-child log files (cap, rotations), or null: the output goes to {@link #childOutput}. */
    private final long logMaxBytes;
    private final int logKeep;
    /** Per group, the spec of its child {@code i} (the same for every child unless the builder varied it). */
    private final Map<String, IntFunction<ChildSpec>> groups;
    private final Map<String, Integer> counts;
    private final Map<String, Integer> nextIndex = new HashMap<>();
    private final List<PoolChild> all = new CopyOnWriteArrayList<>();
    private final List<PoolChild> tracked = new CopyOnWriteArrayList<>();
    private final Map<PoolChild, AdmissionGate.Ticket> pending = new ConcurrentHashMap<>();
    /** Children an addChild registered after a close took the tracked list; that close takes them. */
    private final java.util.Queue<PoolChild> lateJoiners = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final AdmissionGate gate;
    private final Object closeLock = new Object();
    private volatile long currentCloseId;
    private CloseReport lastReport;
    /** Holds every process of this pool (dev.vigil.contain); opened by {@link #start()}. */
    private PoolContainment container;
    /** What a child's exit during the run leads to. */
    private final ExitPolicy exitPolicy;
    private final RestartIntensity intensity;
    /** True once start() journaled PoolStarted: from then on the exit policy applies. */
    private volatile boolean started;
    /** Why the pool failed (a child's exit under fail-pool, or the restart intensity crossed); null while it has not. */
    private final java.util.concurrent.atomic.AtomicReference<String> failure = new java.util.concurrent.atomic.AtomicReference<>();
    /** The close submitted last (guarded by this): a close() waits for one a failure started. */
    private CompletableFuture<CloseReport> closeInProgress;
    /** Held while a restart replaces a child in the tracked list, and while a close takes that list. */
    private final Object restartLock = new Object();

    private Pool(Builder b) {
        this.orchestrator = b.orchestrator;
        this.journal = orchestrator.journal();
        this.poolId = b.poolId;
        this.mode = b.mode;
        this.settings = b.settings != null ? b.settings : orchestrator.closeSettings();
        this.startTimeout = b.startTimeout;
        this.bootingAtOnce = b.bootingAtOnce;
        this.childOutput = b.childOutput;
        this.logMaxBytes = b.logMaxBytes;
        this.logKeep = b.logKeep;
        this.groups = new LinkedHashMap<>(b.specs);
        this.counts = new LinkedHashMap<>(b.counts);
        this.nextIndex.putAll(b.counts);
        this.gate = new AdmissionGate(poolId, journal);
        this.exitPolicy = b.exitPolicy;
        this.intensity = new RestartIntensity(b.exitPolicy.maxRestarts(), b.exitPolicy.period().toNanos(),
                b.exitPolicy.backoff().toNanos(), b.exitPolicy.maxBackoff().toNanos());
    }

    public static Builder builder(Orchestrator orchestrator, String poolId) {
        return new Builder(orchestrator, poolId);
    }

    public String poolId() {
        return poolId;
    }

    public ProtocolMode protocolMode() {
        return mode;
    }

    public CloseSettings closeSettings() {
        return settings;
    }

    /** Every child this pool started, in start order (reaped ones included). */
    public List<PoolChild> children() {
        return List.copyOf(all);
    }

    /** Children not yet reaped and released by a close. */
    public List<PoolChild> trackedChildren() {
        return List.copyOf(tracked);
    }

    /** The child at {@code group}/{@code index}: the latest one, when the exit policy restarted it. */
    public PoolChild child(String group, int index) {
        for (int i = all.size() - 1; i >= 0; i--) {
            PoolChild c = all.get(i);
            if (c.group().equals(group) && c.index() == index) {
                return c;
            }
        }
        throw new IllegalArgumentException("pool=" + poolId + " has no child group=" + group + " index=" + index);
    }

    /** What holds every process of this pool: its cgroup, or its process groups in the fallback. */
    public PoolContainment containment() {
        return container;
    }

    /** True once a close began (admission is fenced for good). */
    public boolean isClosing() {
        return gate.isFenced();
    }

    /** What this pool does about a child that exits during the run. */
    public ExitPolicy exitPolicy() {
        return exitPolicy;
    }

    /**
     * Why the pool failed, if it did: a child exited under {@link ExitPolicy#failPool}, or its restarts crossed the
     * intensity limit of {@link ExitPolicy#restart}. A failed pool closes at once; {@link #close()} returns (or throws
     * with) the report of that close.
     */
    public Optional<String> failure() {
        return Optional.ofNullable(failure.get());
    }

    /**
     * True when {@code child} exited during the run, outside any close: its exit was journaled ({@code ChildExited})
     * and met the {@link ExitPolicy}, or it is in and about to (no close has fenced the pool). False for a child still
     * running or collected by a close, such as the close that a {@link #failure()} starts.
     */
    public boolean exitedDuringRun(PoolChild child) {
        return exitsHandled.contains(child) || (child.exit().isDone() && !gate.isFenced());
    }

    /** The report of the last close, if any ran. */
    public synchronized Optional<CloseReport> lastReport() {
        return Optional.ofNullable(lastReport);
    }

    // ------------------------------------------------------------------ operations (behind the fence)

    /** Runs a control command on one child and waits for its result, at most {@code timeout} (more than zero). */
    public CommandResult control(String group, int index, int opcode, long argument, Duration timeout) {
        MonotonicClock.positiveSpan("timeout", timeout);
        PoolChild c = mailboxChild(group, index);
        return admitted(OP_CONTROL, group, index, c, () -> c.mailbox().control(opcode, argument, timeout));
    }

    /** Places a control command without waiting; it stays in flight until {@link #awaitControl}. */
    public long sendControl(String group, int index, int opcode, long argument) {
        PoolChild c = mailboxChild(group, index);
        AdmissionGate.Ticket t = gate.enter(OP_CONTROL, group, index, c);
        try {
            long id = c.mailbox().sendControl(opcode, argument);
            t.unattended = true;
            pending.put(c, t);
            return id;
        } catch (RuntimeException e) {
            t.leave();
            throw e;
        }
    }

    /** Waits for the control command placed by {@link #sendControl}. */
    public CommandResult awaitControl(String group, int index, Duration timeout) {
        MonotonicClock.positiveSpan("timeout", timeout);
        PoolChild c = mailboxChild(group, index);
        String lost = lostToRestart.remove(group + "/" + index);
        if (lost != null && !pending.containsKey(c)) {
            throw new MailboxException("command failed: pool=" + poolId + " group=" + group + " child=" + index + " " + lost);
        }
        try {
            return c.mailbox().awaitControl(timeout);
        } finally {
            AdmissionGate.Ticket t = pending.remove(c);
            if (t != null) {
                t.leave();
            }
        }
    }

    /** Runs a task on one child and waits for its result. */
    public CommandResult runTask(String group, int index, int opcode, long argument, Duration timeout) {
        MonotonicClock.positiveSpan("timeout", timeout);
        PoolChild c = mailboxChild(group, index);
        return admitted(OP_TASK, group, index, c, () -> c.mailbox().runTask(opcode, argument, timeout));
    }

    /** Starts one more child in {@code group} (same spec) and waits until it is ready. */
    public PoolChild addChild(String group) {
        IntFunction<ChildSpec> specOf = groups.get(group);
        if (specOf == null) {
            throw new IllegalArgumentException("pool=" + poolId + " has no group=" + group);
        }
        int index;
        synchronized (nextIndex) {
            index = nextIndex.merge(group, 1, Integer::sum) - 1;
        }
        ChildSpec spec = specOf.apply(index);
        String noRoom = orchestrator.spawner().openFileShortfall(1, spec.kind() == ChildKind.JAVA ? 1 : 0, 1);
        if (noRoom != null) { // before, the spawn failed naming errno=24 and stage=pipe2 only, the index used up
            synchronized (nextIndex) { // unless a later addChild took the next one meanwhile: then the gap stays
                nextIndex.computeIfPresent(group, (g, next) -> next == index + 1 ? index : next);
            }
            throw new PoolStartException("pool=" + poolId + " group=" + group + " addChild refused: " + noRoom, null, null);
        }
        PoolChild c = spawnAdmitted(group, index, spec);
        String notReady = awaitReady(List.of(c));
        if (notReady != null) {
            throw new PoolStartException("pool=" + poolId + " " + notReady, null, null);
        }
        return c;
    }

    /** Spawns a child inside the admission fence (addChild, a restart); a close that fenced meanwhile takes it. */
    private PoolChild spawnAdmitted(String group, int index, ChildSpec spec) {
        // Only spawning and registering pass the fence; a close that fenced meanwhile takes the child (below).
        return admitted(OP_SPAWN, group, index, null, () -> {
            PoolChild spawned = spawn(group, index, spec);
            // spawn() added it to the tracked children; a close whose fence ran before that may have taken the
            // list without it, so hand it over (the fence reads the list after fencing: one side always sees it).
            if (gate.isFenced()) {
                lateJoiners.add(spawned); // before this operation ends: the close sees it before it can report
                orchestrator.closeEngine().childJoined(gate.closeIdNow());
            }
            return spawned;
        });
    }

    /** Runs {@code operation} inside the admission fence. */
    private <T> T admitted(String operation, String group, int index, PoolChild child, Supplier<T> body) {
        AdmissionGate.Ticket t = gate.enter(operation, group, index, child);
        try {
            return body.get();
        } finally {
            t.leave();
        }
    }

    /**
     * The child {@code group}/{@code index}, which must have a mailbox: an IllegalArgumentException naming it (and its
     * kind) for a plain executable, or for no such child.
     */
    public PoolChild mailboxChild(String group, int index) {
        PoolChild c = child(group, index);
        if (c.mailbox() == null) {
            throw new IllegalArgumentException("pool=" + poolId + " group=" + group + " child=" + index + " kind="
                    + c.kind() + " has no mailbox (plain executables take signals only)");
        }
        return c;
    }

    // ------------------------------------------------------------------ start

    private void start() {
        String stopped = orchestrator.startsStopped();
        if (stopped != null) {
            throw new PoolStartException("pool=" + poolId + " start refused: starts were stopped (" + stopped + ")", null,
                    null);
        }
        String noRoom = orchestrator.spawner().openFileShortfall(childCount(), doorbellChildren(), SPAWN_BATCH);
        if (noRoom != null) { // before, a spawn past the limit failed mid-start ("errno=24 ... stage=pipe2"), rolled back
            throw new PoolStartException("pool=" + poolId + " start refused: " + noRoom, null, null);
        }
        java.nio.file.Path logDir = orchestrator.childLogDir().resolve(dev.vigil.spawn.ChildLog.fileName(poolId));
        try {
            container = orchestrator.containment().openPool(poolId);
            if (logMaxBytes > 0) {
                java.nio.file.Files.createDirectories(logDir);
            }
        } catch (java.io.IOException e) {
            throw new PoolStartException("pool=" + poolId + " start failed: child log dir=" + logDir + " cannot be created: "
                    + JournalException.plain(e), e, null);
        } catch (RuntimeException e) {
            throw new PoolStartException("pool=" + poolId + " start failed: " + e.getMessage(), e, null);
        }
        List<PoolChild> started = new ArrayList<>();
        List<Planned> batch = new ArrayList<>(SPAWN_BATCH);
        java.util.ArrayDeque<PoolChild> booting = new java.util.ArrayDeque<>(); // spawned, booting, not seen ready yet
        long cutsBefore = orchestrator.mailboxes().restores().count();
        try {
            for (Map.Entry<String, Integer> g : counts.entrySet()) {
                for (int i = 0; i < g.getValue(); i++) {
                    Planned p = plan(g.getKey(), i, groups.get(g.getKey()).apply(i));
                    batch.add(p);
                    boolean boots = bootingAtOnce > 0 && p.spec().kind().runsUserCode();
                    if (batch.size() == SPAWN_BATCH || boots && booting.size() + booting(batch) >= bootingAtOnce) {
                        spawnBatch(batch, started, booting);
                        String notReady = boots ? awaitBooted(booting, bootingAtOnce - 1) : null;
                        if (notReady != null) {
                            throw rollback(notReady, null);
                        }
                    }
                }
            }
            spawnBatch(batch, started, booting);
        } catch (PoolStartException e) {
            throw e;
        } catch (RuntimeException e) {
            discard(batch); // planned, never spawned: their mailboxes were never any process's
            // A SpawnException's message already starts with "spawn failed:".
            throw rollback(e instanceof SpawnException ? e.getMessage() : "spawn failed: " + e.getMessage(), e);
        } catch (InternalError e) {
            String cut = mapCut(e);
            discard(batch);
            throw rollback(cut, e);
        }
        String failure;
        try {
            failure = awaitReady(started);
            if (failure == null) {
                failure = cutWhileStarting(cutsBefore); // its file I/O may be where a fault of the poll is raised
            }
        } catch (InternalError e) {
            failure = mapCut(e);
        }
        if (failure != null) {
            throw rollback(failure, null);
        }
        journal.append(new PoolStarted(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, 0, host(), mode.name(),
                groups.size(), started.size()));
        orchestrator.register(this);
        this.started = true;
        for (PoolChild c : started) {
            if (c.exit().isDone() && exitsHandled.add(c)) {
                applyExitPolicy(c, c.exit().join()); // exited after its INIT_READY, before the policy applied
            }
        }
    }

    /**
     * Spawns {@code batch} (emptied) at once unless starts were stopped; the children that started are tracked and
     * added to {@code started}. Throws the first failure once every child of the batch is handled.
     */
    private void spawnBatch(List<Planned> batch, List<PoolChild> started, java.util.Deque<PoolChild> booting) {
        if (batch.isEmpty()) {
            return;
        }
        String stopped = orchestrator.startsStopped();
        if (stopped != null) {
            discard(batch);
            throw rollback("stopped after " + started.size() + " of " + childCount() + " children were spawned ("
                    + stopped + ")", null);
        }
        List<Planned> now = List.copyOf(batch);
        batch.clear();
        for (PoolChild c : spawn(now)) {
            started.add(c);
            if (bootingAtOnce > 0 && c.spec().kind().runsUserCode()) {
                booting.add(c);
            }
        }
    }

    /** How many of {@code batch} boot a runtime (JAVA, PYTHON). */
    private static int booting(List<Planned> batch) {
        int n = 0;
        for (Planned p : batch) {
            n += p.spec().kind().runsUserCode() ? 1 : 0;
        }
        return n;
    }

    /**
     * Waits until at most {@code most} of {@code booting} are not ready, the oldest first (each within its own bound,
     * {@link #awaitReady}); null then, else why not.
     */
    private String awaitBooted(java.util.Deque<PoolChild> booting, int most) {
        while (booting.size() > most) {
            String notReady = awaitReady(List.of(booting.peekFirst()));
            if (notReady != null) {
                return notReady;
            }
            booting.removeFirst();
        }
        return null;
    }

    private PoolChild spawn(String group, int index, ChildSpec spec) {
        return spawn(List.of(plan(group, index, spec))).get(0);
    }

    /** A child about to be spawned: its mailbox (allocated, or null for a plain executable) and its request. */
    private record Planned(String group, int index, ChildSpec spec, MailboxId id, MailboxHandle mailbox,
            SpawnRequest request, dev.vigil.spawn.ChildLog log, dev.vigil.spawn.ChildLog.Mark stderrBefore) {
    }

    /** Allocates the child's mailbox and builds its request; nothing runs yet. */
    private Planned plan(String group, int index, ChildSpec spec) {
        MailboxHandle mailbox = null;
        MailboxId id = new MailboxId(poolId, group, index);
        if (spec.kind().hasMailbox()) {
            mailbox = orchestrator.mailboxes().allocate(id, mode);
            mailbox.journalCommandsTo(journal::append, () -> currentCloseId);
        }
        ChildRuntimes runtimes = orchestrator.childRuntimes();
        List<String> argv = spec.argv(runtimes);
        Map<String, String> env = spec.environment(runtimes, System.getenv());
        if (mailbox != null) {
            env.putAll(mailbox.handoffEnv(journal.orchestratorPid()));
        }
        boolean doorbellPipe = spec.kind() == ChildKind.JAVA; // as doorbellChildren(); a JVM cannot wait on the futex (docs/MAILBOX.md, "The doorbell")
        if (doorbellPipe) {
            env.put(ChildRuntime.DOORBELL_FD_ENV, Integer.toString(SpawnRequest.DOORBELL_FD));
        }
        dev.vigil.spawn.ChildLog log = childLog(group, index);
        SpawnRequest request = SpawnRequest.of(argv).withEnvironment(env).withStdout(childOutput).withStderr(childOutput)
                .withLog(log).inCgroup(container.cgroup());
        if (doorbellPipe) {
            request = request.withDoorbellPipe();
        }
        if (settings.escalation() == EscalationPolicy.LEAK) {
            // leak means kept: a survivor must be able to outlive the orchestrator's exit (Orchestrator.leave)
            request = request.outlivingParent();
        }
        return new Planned(group, index, spec, id, mailbox, request, log,
                log == null ? null : dev.vigil.spawn.ChildLog.Mark.of(log.stderr()));
    }

    /** Releases the mailboxes of planned children that were never spawned (no process ever had their offsets). */
    private void discard(List<Planned> planned) {
        for (Planned p : planned) {
            if (p.mailbox() != null) {
                orchestrator.mailboxes().release(p.id());
            }
        }
        planned.clear();
    }

    /**
     * Spawns {@code planned} at once ({@link dev.vigil.spawn.Spawner#spawnAll}: the shims' execs overlap) and tracks
     * each child that started, in order; a failed one is journaled (SpawnFailed) and its mailbox released. Throws the
     * first failure once every one is handled, so the started ones are tracked for the rollback to close.
     */
    private List<PoolChild> spawn(List<Planned> planned) {
        List<dev.vigil.spawn.Spawner.Spawned> results;
        try {
            results = orchestrator.spawner().spawnAll(planned.stream().map(Planned::request).toList());
        } catch (RuntimeException e) { // the spawner is closed: nothing started
            for (Planned p : planned) {
                spawnFailed(p, e);
            }
            throw e;
        }
        List<PoolChild> out = new ArrayList<>(planned.size());
        RuntimeException first = null;
        for (int i = 0; i < planned.size(); i++) {
            Planned p = planned.get(i);
            dev.vigil.spawn.Spawner.Spawned r = results.get(i);
            if (r.failure() != null) {
                spawnFailed(p, r.failure());
                first = first == null ? r.failure() : first;
            } else {
                out.add(track(p, r.child()));
            }
        }
        if (first != null) {
            throw first;
        }
        return out;
    }

    private void spawnFailed(Planned p, RuntimeException e) {
        int errno = e instanceof SpawnException se ? se.errno() : SpawnException.UNKNOWN_ERRNO;
        journal.append(new SpawnFailed(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, currentCloseId, p.group(),
                p.index(), p.request().commandLine(), errno, String.valueOf(e.getMessage())));
        if (p.mailbox() != null) {
            orchestrator.mailboxes().release(p.id()); // no process ever had its offset
        }
    }

    private PoolChild track(Planned p, ChildProcess process) {
        MailboxHandle mailbox = p.mailbox();
        if (mailbox != null && process.hasDoorbellPipe()) {
            mailbox.alsoRing(process::ringDoorbell);
        }
        container.childStarted(process.pid());
        PoolChild child = new PoolChild(p.group(), p.index(), p.spec(), process, mailbox, orchestrator);
        child.log(p.log(), p.stderrBefore());
        if (mailbox != null) {
            orchestrator.drainer().register(mailbox);
        }
        journal.append(new ChildSpawned(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, 0, p.group(), p.index(),
                process.pid(), p.spec().kind().name(), child.mailboxOffset(),
                mailbox == null ? 0 : mailbox.mailbox().spawnEpoch(), p.request().commandLine()));
        all.add(child);
        tracked.add(child);
        child.exit().thenAccept(exit -> exitedDuringRun(child, exit));
        return child;
    }

    /** Per group/index, why the command a sendControl left on a restarted child failed (for its awaitControl). */
    private final Map<String, String> lostToRestart = new ConcurrentHashMap<>();

    /** The child's own log files under {@link Orchestrator#childLogDir()}/pool, or null without {@link Builder#childLogs}. */
    private dev.vigil.spawn.ChildLog childLog(String group, int index) {
        if (logMaxBytes == 0) {
            return null;
        }
        java.nio.file.Path dir = orchestrator.childLogDir().resolve(dev.vigil.spawn.ChildLog.fileName(poolId));
        String base = dev.vigil.spawn.ChildLog.fileName(group) + "-" + index;
        return new dev.vigil.spawn.ChildLog(dir.resolve(base + ".out"), dir.resolve(base + ".err"), logMaxBytes, logKeep);
    }

    /** Children whose exit during the run was handled (journaled, policy applied): each exactly once. */
    private final Set<PoolChild> exitsHandled = ConcurrentHashMap.newKeySet();

    /**
     * A child exited while no close runs (called on the reaper thread, never blocks): journaled at once, and its
     * pending command fails at once naming the exit instead of running into its timeout. Then the pool's
     * {@link ExitPolicy} decides (once the pool started; during its start the start's own wait sees the exit).
     */
    private void exitedDuringRun(PoolChild child, ChildExit exit) {
        if (gate.isFenced()) {
            return; // a close collects it
        }
        if (!started) {
            // start() sees it: before INIT_READY its wait fails the start; after, its last look applies the policy
            child.failPendingCommands(() -> exitReason(child, exit));
            return;
        }
        if (exitsHandled.add(child)) {
            applyExitPolicy(child, exit);
        }
    }

    private static String exitReason(PoolChild child, ChildExit exit) {
        return "child exited during the run: pid=" + child.pid() + " group=" + child.group() + " child=" + child.index()
                + " " + (exit.signal() > 0 ? "signal=" + exit.signal() : "exitCode=" + exit.exitCode());
    }

    private void applyExitPolicy(PoolChild child, ChildExit exit) {
        RestartIntensity.Decision d = journalExit(child, exit);
        String why = exitReason(child, exit);
        child.failPendingCommands(() -> why);
        switch (exitPolicy.kind()) {
            case KEEP -> { }
            case FAIL_POOL -> fail(why + "; policy fail-pool");
            case RESTART -> {
                if (d == null) {
                    return; // the pool failed or is closing: nothing to restart
                }
                if (!d.restart()) {
                    fail(why + "; restart intensity crossed: it would be restart " + d.restartsInPeriod() + " within "
                            + exitPolicy.period().toMillis() + " ms (maxRestarts=" + exitPolicy.maxRestarts() + ")");
                    return;
                }
                java.util.concurrent.ScheduledExecutorService supervisor = orchestrator.supervisor();
                if (supervisor == null) {
                    return; // the orchestrator is closing: its close collects the child
                }
                try {
                    supervisor.schedule(() -> restart(child, d), d.backoffNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
                } catch (java.util.concurrent.RejectedExecutionException closing) {
                    // the orchestrator is closing: its close collects the child
                }
            }
            default -> throw new IllegalStateException("unknown exit policy " + exitPolicy.kind());
        }
    }

    /** Journals ChildExited; under the restart policy with the restart decision, returned (null: none was made). */
    private RestartIntensity.Decision journalExit(PoolChild child, ChildExit exit) {
        boolean restartPolicy = exitPolicy.kind() == ExitPolicy.Kind.RESTART;
        RestartIntensity.Decision d = null;
        synchronized (intensity) {
            // Decided at the journaled time, in journal order, with the settings journaled beside it: the replay's
            // decision audit (RestartDecisionAudit) re-runs the same RestartIntensity on the same inputs.
            long now = MonotonicClock.nanos();
            if (restartPolicy && failure.get() == null && !gate.isFenced()) {
                d = intensity.onExit(now);
            }
            journal.append(restartPolicy ? intensity.exitEvent(now, journal.orchestratorPid(), poolId, child.group(),
                    child.index(), child.pid(), exit.exitCode(), exit.signal(), exitPolicy.label(), d)
                    : new ChildExited(now, journal.orchestratorPid(), poolId, 0, child.group(), child.index(), child.pid(),
                            exit.exitCode(), exit.signal(), exitPolicy.label(), 0, 0, 0, 0, -1, -1));
        }
        return d;
    }

    /**
     * Starts {@code old}'s replacement (same group, index and spec) on the supervisor thread, after its backoff: frees
     * the old mailbox, spawns inside the admission fence, waits for INIT_READY, journals ChildRestarted. A close that
     * fenced first collects the old child instead; a replacement that exits again meets the policy again.
     */
    private void restart(PoolChild old, RestartIntensity.Decision d) {
        try {
            synchronized (restartLock) {
                if (gate.isFenced() || failure.get() != null || orchestrator.isClosing()
                        || orchestrator.startsStopped() != null) {
                    return; // the close takes the old child (the tracked list is read under this lock)
                }
                tracked.remove(old);
            }
            AdmissionGate.Ticket unattended = pending.remove(old);
            if (unattended != null) {
                unattended.leave(); // its command already failed (CommandFailed) when the child exited
                // a later awaitControl on this slot names that exit, not the replacement's empty mailbox
                lostToRestart.put(old.group() + "/" + old.index(), exitReason(old, old.exit().join())
                        + "; the child was restarted");
            }
            if (old.hasMailbox()) {
                long offset = old.mailboxOffset();
                long giveUp = MonotonicClock.nanos() + java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
                while (!old.tryReleaseMailbox()) { // a caller still inside a command on it: it fails at once
                    if (MonotonicClock.nanos() > giveUp) {
                        fail("restart of group=" + old.group() + " child=" + old.index() + " pid=" + old.pid()
                                + " failed: its mailbox stayed busy for 2 s after the exit");
                        return;
                    }
                    java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                }
                journal.append(new MailboxReleased(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, 0,
                        old.group(), old.index(), offset));
            }
            journal.forget(poolId, old.group(), old.index());
            PoolChild fresh;
            try {
                fresh = spawnAdmitted(old.group(), old.index(), old.spec());
            } catch (AdmissionClosedException closing) {
                return; // a close began meanwhile (journaled AdmissionRejected): nothing to restart into
            }
            String notReady = awaitReady(List.of(fresh));
            if (notReady != null) {
                if (!fresh.exit().isDone() && orchestrator.startsStopped() == null) {
                    fail("restart of group=" + old.group() + " child=" + old.index() + " failed: " + notReady);
                }
                return; // it exited: its own exit met the policy
            }
            journal.append(new ChildRestarted(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, 0, old.group(),
                    old.index(), old.pid(), fresh.pid(), d.backoffNanos(), d.restartsInPeriod(), exitPolicy.maxRestarts(),
                    exitPolicy.period().toNanos()));
        } catch (RuntimeException e) {
            if (!gate.isFenced()) {
                fail("restart of group=" + old.group() + " child=" + old.index() + " failed: " + e.getMessage());
            }
        }
    }

    /**
     * The pool failed: journaled (PoolFailed, naming the close it starts) and closed at once through the close engine,
     * without waiting here (this runs on the reaper or supervisor thread). Only the first failure counts.
     */
    private void fail(String reason) {
        if (!failure.compareAndSet(null, reason)) {
            return;
        }
        synchronized (this) {
            if (gate.isFenced() || closeInProgress != null && !closeInProgress.isDone()) {
                journal.append(new PoolFailed(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, currentCloseId,
                        reason)); // a close is already under way: it is the one
                return;
            }
            long closeId = CloseEngine.nextCloseId();
            currentCloseId = closeId;
            journal.append(new PoolFailed(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, closeId, reason));
            CompletableFuture<CloseReport> f = orchestrator.closeEngine().submit(new Target(settings), closeId);
            closeInProgress = f;
            f.thenAccept(r -> {
                synchronized (Pool.this) {
                    lastReport = r;
                }
            });
        }
    }

    private long childCount() {
        return counts.values().stream().mapToLong(Integer::longValue).sum();
    }

    /** Children spawned with a doorbell pipe (kind JAVA; each group's kind read from its child 0). */
    private long doorbellChildren() {
        return counts.entrySet().stream().filter(g -> g.getValue() > 0
                && groups.get(g.getKey()).apply(0).kind() == ChildKind.JAVA).mapToLong(Map.Entry::getValue).sum();
    }

    /** Lines of a start-failed child's stderr quoted in its pool's start failure (the close report keeps more). */
    static final int START_FAILURE_STDERR_LINES = 3;

    /**
     * What a child that did not become ready left to say why: the error text in its mailbox; else where its stderr
     * went, with its last lines if they are there yet (its log writer copies them from a pipe: they may come a little
     * after the exit). Before, a child that exited without writing an error read "error=" and nothing more.
     */
    private static String whatItSaid(PoolChild c) {
        String error = c.mailbox().childErrorText();
        if (error != null && !error.isBlank()) {
            return "error=" + error;
        }
        java.nio.file.Path log = c.stderrLog();
        if (log == null) {
            return "(no error in its mailbox)";
        }
        String tail = c.stderrTail();
        List<String> lines = tail == null ? List.of() : tail.strip().lines().toList();
        return "(no error in its mailbox; its stderr: " + log + ")" + (lines.isEmpty() ? "" : " "
                + String.join(" | ", lines.subList(Math.max(0, lines.size() - START_FAILURE_STDERR_LINES), lines.size())));
    }

    /**
     * Null when every child is ready within {@link #startTimeout} of its own spawn; else why not. From its own spawn,
     * not from the start's last one: a bound on the whole start failed healthy children of a large pool of slow
     * starters, while one booting child's bound does not depend on how many others there are.
     */
    private String awaitReady(List<PoolChild> children) {
        for (PoolChild c : children) {
            if (c.mailbox() == null) {
                continue;
            }
            long deadline = c.process().spawnedNanos() + startTimeout.toNanos();
            while (true) {
                if (c.exit().isDone()) {
                    return "group=" + c.group() + " child=" + c.index() + " pid=" + c.pid() + " exited before INIT_READY: "
                            + c.process().exitStatus().map(s -> s.describe()).orElse("?") + " " + whatItSaid(c);
                }
                long left = deadline - MonotonicClock.nanos();
                InitOutcome outcome = c.mailbox().awaitInit(Duration.ofNanos(Math.max(0, Math.min(left, 20_000_000L))));
                if (outcome == InitOutcome.READY) {
                    break;
                }
                String stopped = orchestrator.startsStopped();
                if (stopped != null) {
                    return "stopped while waiting for INIT_READY of group=" + c.group() + " child=" + c.index() + " ("
                            + stopped + ")";
                }
                if (outcome == InitOutcome.FAILED) {
                    return "group=" + c.group() + " child=" + c.index() + " pid=" + c.pid() + " reported INIT_FAILED "
                            + whatItSaid(c);
                }
                if (left <= 0) {
                    return "group=" + c.group() + " child=" + c.index() + " pid=" + c.pid() + " not ready within "
                            + startTimeout.toMillis() + " ms of its spawn";
                }
            }
        }
        return null;
    }

    /**
     * The memory fault of a start whose mailbox map was cut short while mapped (a child truncating it: the allocation
     * of a later child's mailbox, or the readiness poll, touches a page past the new end): the length is restored
     * ({@link Orchestrator#restoreCutMailboxFile}) and the start fails in one line naming the file, and rolls back
     * what it spawned, journaled, as any failed start. Before, the InternalError left start() past its rollback: the
     * spawned children were never closed in the journal (audit: POOL_NOT_CLOSED, 64 children) and the run said
     * "memory fault on a mapped journal file". Also for such a fault raised in a close's wait on this thread
     * ({@link #awaitClose}). Rethrows another error.
     */
    private String mapCut(InternalError e) {
        if (!JournalException.isMemoryFault(e)) {
            throw e;
        }
        String restored = orchestrator.repairAfterMemoryFault();
        return restored != null ? restored : "memory fault on the mailbox file=" + orchestrator.mailboxes().mapFile()
                + " (cut short while mapped; its length was restored already)";
    }

    /**
     * Null unless the mailbox map was cut while this start ran ({@code cutsBefore}: the store's count of restores when
     * it began): then the words the readiness poll read cannot be trusted, whichever thread met the fault and restored
     * the file. A read of a page past the cut end returns whatever the register held before HotSpot raises the fault
     * at a later instruction, so a poll can see a child ready that never was: a start at load 50 returned its pool
     * although its children (sleeps that never report INIT_READY) were not, when the ring drainer met the fault first.
     */
    private String cutWhileStarting(long cutsBefore) {
        return orchestrator.cutSince(new long[] {cutsBefore});
    }

    /** Closes whatever started (escalating: a failed start must leave nothing behind) and builds the exception. */
    private PoolStartException rollback(String reason, Throwable cause) {
        CloseReport report = null;
        if (!tracked.isEmpty()) {
            Duration window = settings.window().compareTo(Duration.ofSeconds(2)) < 0 ? settings.window() : Duration.ofSeconds(2);
            Duration grace = settings.grace().compareTo(Duration.ofSeconds(1)) < 0 ? settings.grace() : Duration.ofSeconds(1);
            CloseSettings rollbackSettings = settings.toBuilder().escalation(EscalationPolicy.TERM_THEN_KILL)
                    .window(window).grace(grace).fixedBudget(Duration.ZERO).build();
            try {
                report = runClose(rollbackSettings);
            } catch (RuntimeException e) {
                if (cause != null) {
                    e.addSuppressed(cause);
                }
                cause = e;
            }
        }
        return new PoolStartException("pool=" + poolId + " start failed: " + reason, cause, report);
    }

    // ------------------------------------------------------------------ close

    /**
     * Closes the pool through the orchestrator's close engine and returns the report.
     *
     * @throws CloseFailedException when a child was not cleanly reaped (its report and diagnoses are in it)
     */
    public CloseReport closeWithReport() {
        synchronized (closeLock) {
            CloseReport failed = awaitFailureClose();
            synchronized (this) {
                if (failed == null && lastReport != null && tracked.isEmpty()) {
                    return lastReport;
                }
            }
            CloseReport report = failed != null && tracked.isEmpty() ? failed : runClose(settings);
            if (tracked.isEmpty()) {
                orchestrator.freePoolId(poolId);
            }
            if (!report.isClean()) {
                throw new CloseFailedException(report);
            }
            return report;
        }
    }

    /**
     * The orchestrator is closing: close what this pool still tracks, escalating whatever the pool's
     * policy (nobody would track a leaked child afterwards). Null when nothing was tracked.
     */
    CloseReport closeAtOrchestratorShutdown() {
        synchronized (closeLock) {
            awaitFailureClose();
            if (tracked.isEmpty()) {
                return null;
            }
            return runClose(settings.toBuilder().escalation(EscalationPolicy.TERM_THEN_KILL).build());
        }
    }

    /** {@link #closeWithReport()}; see there. */
    @Override
    public void close() {
        closeWithReport();
    }

    /** Waits for the close a failure started, if it has not been waited for; its report, or null for none. */
    private CloseReport awaitFailureClose() {
        CompletableFuture<CloseReport> running;
        long closeId;
        synchronized (this) {
            running = closeInProgress;
            closeId = currentCloseId;
            closeInProgress = null;
        }
        return running == null ? null : awaitClose(running, closeId, null, 0);
    }

    private CloseReport runClose(CloseSettings with) {
        long closeId;
        CompletableFuture<CloseReport> future;
        Object returned = CloseJfr.beginReturned();
        long submitted = MonotonicClock.nanos();
        synchronized (this) { // a failure's close and this one never both start (fail() looks under this lock)
            closeId = CloseEngine.nextCloseId();
            currentCloseId = closeId;
            future = orchestrator.closeEngine().submit(new Target(with), closeId);
            closeInProgress = future;
        }
        try {
            return awaitClose(future, closeId, returned, submitted);
        } finally {
            // Also when the close failed inside the engine (CloseAborted): before, the failed future stayed here, and
            // the pool's next close awaited it again (the same failure, the same closeId) instead of closing anew.
            synchronized (this) {
                if (closeInProgress == future) {
                    closeInProgress = null;
                }
            }
        }
    }

    /**
     * Waits for the report, flushes the journal; {@code returned} (JFR, null when off) is timed from {@code submitted}.
     * Bounded by the engine's life: every {@link #ENGINE_CHECK_MILLIS} the caller checks its thread is alive (a dead
     * one fails the close at once), and a close the engine failed ({@link CloseEngineFailedException}) ends with the
     * pool's children killed and reaped here ({@link #killAfterEngineFailure}).
     */
    private CloseReport awaitClose(CompletableFuture<CloseReport> future, long closeId, Object returned,
            long submitted) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    CloseReport report = future.get(ENGINE_CHECK_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
                    long woke = MonotonicClock.nanos();
                    releaseContainer();
                    // On the caller's thread, never the engine's: the close's events are on disk when it
                    // returns (bounded; a broken journal is named by its gap, not waited on), and the live
                    // report says so when the journal is incomplete.
                    var gap = journal.flush(CLOSE_FLUSH_BOUND);
                    if (returned != null) {
                        CloseJfr.commitReturned(returned, poolId, closeId, woke - submitted,
                                MonotonicClock.nanos() - submitted);
                    }
                    if (gap.isPresent()) {
                        report = report.withJournalGap(gap.get().describe());
                    }
                    synchronized (this) {
                        lastReport = report;
                    }
                    return report;
                } catch (java.util.concurrent.TimeoutException e) {
                    orchestrator.closeEngine().checkAlive(); // its thread gone: this close fails now, next turn
                } catch (InternalError e) {
                    // A memory fault this thread met before (a cut mailbox map: a start's readiness poll), raised by
                    // HotSpot at its next return from native code, the wait's park: not this close's, which runs on
                    // the engine. The map is restored (its line is the start's, if a start asked), and the wait goes on.
                    mapCut(e);
                } catch (InterruptedException e) {
                    interrupted = true; // a close once started runs to its report
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof CloseEngineFailedException failed) {
                        throw new IllegalStateException(failed.getMessage() + "; " + killAfterEngineFailure(), failed);
                    }
                    // The engine's failure names the pool, the close and why already (CloseMachine.guarded)
                    throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The close engine failed this pool's close: a broken engine never keeps the pool from closing. Kills the pool's
     * container (cgroup.kill, or each process group) and every tracked child through its pidfd, waits for their reaps
     * (the reaper collects them through the pidfds; bounded by {@link #KILLED_REAP_BOUND}) and stops tracking those
     * reaped. Their mailboxes stay allocated until the orchestrator closes. Says what it did, in a few words.
     */
    private String killAfterEngineFailure() {
        List<PoolChild> children;
        synchronized (restartLock) {
            children = new ArrayList<>(tracked);
        }
        String killed = "";
        if (container != null) {
            try {
                container.killAll();
                killed = container.describe() + " killed, ";
            } catch (RuntimeException e) {
                killed = container.describe() + " not killed (" + JournalException.plain(e) + "), ";
            }
        }
        for (PoolChild c : children) {
            c.signal(dev.vigil.close.decision.EscalationStep.SIGKILL);
            c.signalProcessGroup(dev.vigil.close.decision.EscalationStep.SIGKILL);
        }
        long deadline = MonotonicClock.nanos() + KILLED_REAP_BOUND.toNanos();
        int reaped = 0;
        for (PoolChild c : children) {
            try {
                c.exit().get(Math.max(0, deadline - MonotonicClock.nanos()), java.util.concurrent.TimeUnit.NANOSECONDS);
                reaped++;
            } catch (java.util.concurrent.TimeoutException | ExecutionException e) {
                // counted below as not reaped
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        forget(c -> c.exit().isDone()); // their mailboxes stay allocated until the orchestrator closes
        return killed + children.size() + " children SIGKILLed here, " + reaped + " reaped"
                + (reaped < children.size() ? " (" + (children.size() - reaped) + " not within "
                        + KILLED_REAP_BOUND.toSeconds() + " s)" : "");
    }

    /**
     * Removes the pool's container once the close that finished left nothing tracked (on the close's caller's thread,
     * before it returns; a close nobody awaits leaves it to the next close or the orchestrator's close). release()
     * removes only an empty container (rmdir fails on a populated cgroup; the process-group fallback scans).
     */
    private void releaseContainer() {
        if (tracked.isEmpty()) {
            orchestrator.containment().release(container);
        }
    }

    private static String host() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    /** This pool as the close engine sees it, with the settings of one close. */
    private final class Target implements CloseTarget {
        private final CloseSettings with;

        Target(CloseSettings with) {
            this.with = with;
        }

        @Override
        public String poolId() {
            return poolId;
        }

        @Override
        public CloseSettings closeSettings() {
            return with;
        }

        @Override
        public int fenceAdmission(long closeId, Runnable onSettled) {
            return gate.fence(closeId, onSettled);
        }

        @Override
        public List<? extends ClosingChild> takeLateJoiners() {
            List<PoolChild> out = new ArrayList<>();
            PoolChild c;
            while ((c = lateJoiners.poll()) != null) {
                out.add(c);
            }
            return out;
        }

        @Override
        public boolean settleInFlight(long closeId, java.util.function.Predicate<ClosingChild> on) {
            return gate.settle(closeId, on);
        }

        @Override
        public void abandonInFlight(long closeId) {
            gate.abandon(closeId);
        }

        @Override
        public List<? extends ClosingChild> trackedChildren() {
            List<PoolChild> list;
            synchronized (restartLock) { // a restart replaces a child under it: this close takes the old or the new
                list = new ArrayList<>(tracked);
            }
            list.sort(Comparator.comparing(PoolChild::group).thenComparingInt(PoolChild::index));
            return list;
        }

        @Override
        public PoolContainment containment() {
            return container;
        }

        @Override
        public void closeFinished(CloseReport report) {
            forgetGone();
            // The container is removed by the caller's thread (releaseContainer), not here: a cgroup's rmdir can block
            // for hundreds of ms (the kernel offlining its memory controller, the global cgroup lock), and the engine
            // thread never blocks.
        }

        @Override
        public void closeAborted() {
            forgetGone();
        }

        /** Stops tracking the children that exited and whose mailboxes are released. */
        private void forgetGone() {
            forget(c -> c.exit().isDone() && (!c.hasMailbox() || c.mailboxReleased()));
        }
    }

    /** Stops tracking the children that are {@code gone}, and the journal's memory of them. */
    private void forget(java.util.function.Predicate<PoolChild> gone) {
        // one pass (the list copies itself once, not once per child: a 256-child close removed 256 times)
        tracked.removeIf(c -> {
            boolean forgotten = gone.test(c);
            if (forgotten) {
                journal.forget(poolId, c.group(), c.index());
            }
            return forgotten;
        });
    }

    /**
     * Null when {@code poolId} can name a pool, else why not (it is journaled and names the pool's cgroup and log
     * folder): the spec reader refuses the same ids up front, before anything starts.
     */
    public static String whyNotPoolId(String poolId) {
        return poolId == null || poolId.isBlank() || poolId.chars().anyMatch(ch -> ch < 0x20)
                ? "must be non-blank printable text (no control characters)" : null;
    }

    /** Builds and starts a {@link Pool}. */
    public static final class Builder {
        private final Orchestrator orchestrator;
        private final String poolId;
        private final Map<String, IntFunction<ChildSpec>> specs = new LinkedHashMap<>();
        private final Map<String, Integer> counts = new LinkedHashMap<>();
        private ProtocolMode mode = ProtocolMode.STICKY;
        private CloseSettings settings;
        private Duration startTimeout = DEFAULT_START_TIMEOUT;
        private int bootingAtOnce = BOOTING_AT_ONCE;
        private Redirect childOutput = Redirect.INHERIT;
        private long logMaxBytes;
        private int logKeep;
        private ExitPolicy exitPolicy = ExitPolicy.keep();

        private Builder(Orchestrator orchestrator, String poolId) {
            this.orchestrator = Objects.requireNonNull(orchestrator, "orchestrator");
            String why = whyNotPoolId(poolId);
            if (why != null) {
                throw new IllegalArgumentException("poolId=" + (poolId == null ? null
                        : dev.vigil.spawn.ChildLog.escapeControls(poolId)) + " " + why);
            }
            this.poolId = poolId;
        }

        /** A group of {@code count} children started from {@code spec}; groups start in the order given. */
        public Builder group(String name, int count, ChildSpec spec) {
            Objects.requireNonNull(spec, "spec");
            return group(name, count, i -> spec);
        }

        /**
         * A group whose children differ (the demo draws each child's teardown time): child {@code i} of
         * the first {@code count} starts from {@code specOfChild.apply(i)}; children added later with
         * {@link Pool#addChild} from {@code specOfChild.apply(0)}.
         */
        public Builder group(String name, int count, IntFunction<ChildSpec> specOfChild) {
            if (name == null || name.isBlank() || specs.containsKey(name)) {
                throw new IllegalArgumentException("pool=" + poolId + " group=" + name + " is blank or given twice");
            }
            if (count < 0) {
                throw new IllegalArgumentException("pool=" + poolId + " group=" + name + " count=" + count + " must be >= 0");
            }
            specs.put(name, Objects.requireNonNull(specOfChild, "specOfChild"));
            counts.put(name, count);
            return this;
        }

        /** STICKY (default) or LEGACY (reproduces the lost-shutdown race; tests and the replay's diagnosis only). */
        public Builder protocolMode(ProtocolMode m) {
            this.mode = Objects.requireNonNull(m, "mode");
            return this;
        }

        /** This pool's close settings (default: the orchestrator's). */
        public Builder closeSettings(CloseSettings s) {
            this.settings = s;
            return this;
        }

        /** Bound on waiting for INIT_READY of each child, from its own spawn (default 30 s); more than zero. */
        public Builder startTimeout(Duration d) {
            this.startTimeout = MonotonicClock.positiveSpan("startTimeout", d);
            return this;
        }

        /**
         * How many JAVA and PYTHON children (an interpreter to boot, then the user's handler) the start lets boot at
         * once: the next one is spawned when the oldest booting one is ready (default 8 per CPU, or
         * {@code -Dvigil.start.booting}; 0: no bound, every batch of {@code vigil.spawn.batch} at once). Without a
         * bound, 250 JVMs booted together on 2 cores: each spawn of a later batch waited behind every booting JVM's
         * threads (a batch of 64 took 8 s), so a stop took effect 2-9 s late, and how soon a child could be ready grew
         * with the pool's size, against a bound per child.
         */
        public Builder bootingAtOnce(int n) {
            if (n < 0) {
                throw new IllegalArgumentException("bootingAtOnce=" + n + ": must be >= 0 (0: no bound)");
            }
            this.bootingAtOnce = n;
            return this;
        }

        /** What the pool does about a child that exits during the run (default {@link ExitPolicy#keep()}). */
        public Builder exitPolicy(ExitPolicy p) {
            this.exitPolicy = Objects.requireNonNull(p, "exitPolicy");
            return this;
        }

        /**
         * Each child's stdout and stderr go to its own log files, {@code <journal dir>-logs/<pool>/<group>-<index>.out}
         * and {@code .err}, written by a log writer the spawn shim starts (no orchestrator thread in the path), each
         * rotated at {@code maxBytes} keeping {@code keep} old files (docs/SPAWNING.md, "Children's output"). The close
         * report carries the last lines of a failed child's stderr. Overrides {@link #childOutput}.
         */
        public Builder childLogs(long maxBytes, int keep) {
            new dev.vigil.spawn.ChildLog(java.nio.file.Path.of("check"), java.nio.file.Path.of("check"), maxBytes, keep);
            this.logMaxBytes = maxBytes;
            this.logKeep = keep;
            return this;
        }

        /** Where the children's stdout and stderr go (default: inherited); see also {@link #childLogs}. */
        public Builder childOutput(Redirect r) {
            this.childOutput = Objects.requireNonNull(r, "childOutput");
            return this;
        }

        /**
         * Spawns every child and waits until all are ready.
         *
         * @throws IllegalArgumentException when an open pool of this orchestrator has this id, or an id naming the
         *         same child log files ("a/b" and "a_b"); nothing is spawned or journaled then
         * @throws PoolStartException after closing what had started
         */
        public Pool start() {
            Pool pool = new Pool(this);
            orchestrator.takePoolId(poolId);
            boolean started = false;
            try {
                pool.start();
                started = true;
                return pool;
            } finally {
                if (!started) {
                    orchestrator.freePoolId(poolId);
                }
            }
        }
    }
}
