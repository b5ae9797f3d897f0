package dev.vigil.pool;

import dev.vigil.journal.JournalException;
import dev.vigil.journal.JournalOwner;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

import dev.vigil.close.CloseEngine;
import dev.vigil.close.CloseSettings;
import dev.vigil.close.PoolJournal;
import dev.vigil.contain.Containment;
import dev.vigil.contain.ContainmentMode;
import dev.vigil.contain.ContainmentSettings;
import dev.vigil.contain.Guardian;
import dev.vigil.contain.ProcessIdentity;
import dev.vigil.recovery.CrashRecovery;
import dev.vigil.recovery.JournalDirOwnership;
import dev.vigil.recovery.OwnerRecord;
import dev.vigil.journal.ContainmentChosen;
import dev.vigil.journal.JournalDirectory;
import dev.vigil.journal.JournalSetAside;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.JournalWriter;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.RingDrainer;
import dev.vigil.mailbox.RingSettings;
import dev.vigil.spawn.Spawner;
import dev.vigil.spawn.SpawnerOptions;

/**
 * What the pools of one process share: the journal, the spawner and its reaper, the mailbox map,
 * the ring drainer and the close engine. Open one per process, start pools with
 * {@link Pool#builder(Orchestrator, String)}, close it last.
 *
 * <p>{@link #close()} first closes, through the close engine and journaled, every pool that still tracks
 * children (pools never closed, survivors of a LEAK close), with escalation TERM_THEN_KILL whatever the
 * pool's policy: nothing would track them afterwards. Closes other threads run are waited for at most
 * {@link #CLOSE_PATIENCE} ({@link Builder#closePatience}), then escalated. Anything still alive then is SIGKILLed by
 * the spawner.
 */
public final class Orchestrator implements AutoCloseable {
    /**
     * The longest the ring drainer parks while every ring is idle (a command completion or a full ring wakes it; busy rings
     * are drained within ~1 ms, or inline by the command path at half full): one wake-up a second, ~0.03 % of a core.
     */
    public static final Duration DRAIN_PERIOD = Duration.ofSeconds(1);

    /**
     * How long {@link #close()} waits for closes run by other threads ({@link Pool#closeWithReport}) before it escalates
     * them ({@link Builder#closePatience}; default): as systemd's stop timeout, then their kill step ends them.
     */
    public static final Duration CLOSE_PATIENCE = Duration.ofSeconds(30);

    /** How long {@link #close()} waits for pool containers it kills to empty. */
    private static final long CONTAINER_KILL_BOUND_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);

    private final PoolJournal journal;
    private final boolean ownsJournal;
    private final Containment containment;
    private final JournalDirOwnership ownership;
    private final CrashRecovery.Outcome recovery;
    /** The damaged journal this open set aside, or null. */
    private final SetAside setAside;
    /** What a failed start removes again. */
    private final StartLeftovers leftovers;
    /** Null when vigil.guardian=off. */
    private final Guardian guardian;
    private final Spawner spawner;
    private final MailboxStore mailboxes;
    /** Per thread: the map's restore count when it last asked {@link #repairAfterMemoryFault}. */
    private final ThreadLocal<long[]> restoresSeenByThisThread = ThreadLocal.withInitial(() -> new long[1]);
    private final RingDrainer drainer;
    private final CloseEngine engine;
    private final CloseSettings closeSettings;
    private final Duration closePatience;
    private final ChildRuntimes runtimes;
    private final java.util.Set<Pool> pools = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** The ids of the pools started and not yet closed, under their child log file name (guarded by itself). */
    private final java.util.Map<String, String> openPoolIds = new java.util.HashMap<>();
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** Restarts children of pools whose exit policy says so (one thread, started by the first restart). */
    private java.util.concurrent.ScheduledExecutorService supervisor;
    private volatile String startsStopped;

    private Orchestrator(Builder b) {
        // First of all: own the journal dir (a second orchestrator refuses here, before touching any file of it).
        Path dir = b.journal != null ? b.journal.dir() : b.journalDir;
        Path mapFile = b.mapFile(dir);
        this.leftovers = b.leftovers != null ? b.leftovers : StartLeftovers.note();
        try {
            this.ownership = JournalDirOwnership.acquire(dir);
        } catch (dev.vigil.recovery.JournalDirInUseException inUse) {
            throw inUse; // what is there may be the owner's
        } catch (RuntimeException e) {
            leftovers.removeCreated();
            throw e;
        }
        // The mailbox map opens on a thread of its own while the journal, containment, spawner and guardian
        // start here: the two Chronicle stores load separate classes, and start-up is mostly class loading.
        CompletableFuture<MailboxStore> mapOpening = CompletableFuture.supplyAsync(
                () -> MappedPathClasses.queried(MailboxStore.createOrOpen(mapFile, b.maxMailboxes, b.ringSettings)),
                task -> {
                    Thread t = new Thread(task, "vigil-open-mailboxes");
                    t.setDaemon(true);
                    t.start();
                });
        // and MappedPathClasses (~60-90 ms of CPU at load 30, most of it the journal's writers), done before the drainer
        CompletableFuture<Void> preparing = CompletableFuture.runAsync(MappedPathClasses::initialize, task -> {
            Thread t = new Thread(task, "vigil-open-prepare");
            t.setDaemon(true);
            t.start();
        });
        JournalWriter writer;
        CrashRecovery.JournalRead before = null;
        Path setAsideTo = null;
        long setAsideAt = 0;
        try {
            if (b.journal == null && ownership.previousOwner() != null) {
                // After a crash, before any writer touches it: the dead one's journal, read to its end or its damage.
                // A damaged one is set aside whole (journald's way) and this one journals into a fresh one: appended
                // after the damage, every event would be unreadable, and every restart would meet the same damage.
                before = CrashRecovery.JournalRead.of(b.journalDir);
                if (before.damage() != null) {
                    setAsideTo = JournalDirectory.setAside(b.journalDir, System.currentTimeMillis());
                    setAsideAt = MonotonicClock.nanos();
                }
            }
            writer = b.journal != null ? b.journal : JournalWriter.open(b.journalDir);
        } catch (RuntimeException e) {
            closeWhenOpened(mapOpening);
            endDeadOwnersProcesses(ownership.previousOwner(), e);
            ownership.close();
            leftovers.removeCreated();
            throw e;
        }
        this.ownsJournal = b.journal == null;
        this.journal = new PoolJournal(writer);
        this.closeSettings = b.closeSettings;
        this.closePatience = b.closePatience;
        this.runtimes = ChildRuntimes.locate(b.spawnerOptions.nativeDir());
        Spawner s = null;
        MailboxStore m = null;
        RingDrainer d = null;
        Containment c = null;
        Guardian g = null;
        CrashRecovery.Outcome r = null;
        try {
            c = Containment.open(b.containmentSettings);
            long containmentChosen = MonotonicClock.nanos();
            s = Spawner.start(b.spawnerOptions);
            if (c.mode() == ContainmentMode.PROCESS_GROUP) {
                c.publishProcessGroupsTo(sibling(writer.dir(), "-pgroups"));
            }
            if (b.containmentSettings.guardian()) {
                g = Guardian.start(s, b.spawnerOptions.nativeDir(), c,
                        sibling(writer.dir(), "-guardian-" + journal.orchestratorPid() + ".json"));
            }
            m = opened(mapOpening);
            // Nothing is journaled before the mailbox map is had: a start that cannot run (e.g. a full disk) says so in
            // one line, not after a journal that could not write its first event said so too.
            if (setAsideTo != null) { // the fresh journal's first event
                journal.append(new JournalSetAside(setAsideAt, journal.orchestratorPid(), "", 0,
                        setAsideTo.toString(), before.damage().file(), before.damage().index(), before.lastGoodIndex(),
                        before.damage().damage(b.journalDir)));
            }
            journal.append(new ContainmentChosen(containmentChosen, journal.orchestratorPid(), "", 0,
                    c.mode().label(), c.root() == null ? "" : c.root().toString(), c.reason()));
            r = CrashRecovery.recover(ownership.previousOwner(), writer.dir(), journal, m, before);
            ProcessIdentity self = ProcessIdentity.self();
            ownership.record(new OwnerRecord(self.pid(), self.startTicks(), c.mode().label(),
                    c.root() == null ? "" : c.root().toString(),
                    c.processGroupsFile() == null ? "" : c.processGroupsFile().toString()));
            opened(preparing); // before the drainer and the close engine touch the map
            d = new RingDrainer(journal::append, RingDrainer.DEFAULT_STALL, b.ringSettings.flowControl());
            d.start(DRAIN_PERIOD, () -> 0L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (m == null) {
                closeWhenOpened(mapOpening);
            }
            closeAfterFailedOpen(writer, s, m, d, c, g);
            throw new IllegalStateException("interrupted while recovering journal dir=" + writer.dir(), e);
        } catch (RuntimeException e) {
            if (m == null) {
                closeWhenOpened(mapOpening);
            }
            closeAfterFailedOpen(writer, s, m, d, c, g);
            throw e;
        }
        this.recovery = r;
        if (setAsideTo != null) {
            this.setAside = new SetAside(setAsideTo, before.damage().damage(b.journalDir), before.lastGoodIndex());
            System.err.println("vigil: warning: " + setAside.describe(writer.dir()));
        } else {
            this.setAside = null;
        }
        this.containment = c;
        this.guardian = g;
        this.spawner = s;
        this.mailboxes = m;
        this.drainer = d;
        // the map removes of the mailboxes a close released wait until no close runs (MailboxStore.removeReleased)
        this.engine = new CloseEngine(journal, s.reaper(), m::removeReleased);
        drainer.repairMappedFilesWith(this::repairAfterMemoryFault);
        engine.repairMappedFilesWith(this::repairAfterMemoryFault);
        // The survivors' own stacks, journaled before any escalation signal ends them (bounded: StackCapture.BOUND).
        engine.beforeEscalation(new dev.vigil.close.StackCapture(journal));
    }

    /**
     * Before an open that found a dead owner fails on its journal (a damaged one that cannot be set aside, a writer that
     * cannot open): that owner's processes end first, as recovery would have ended them, whatever happens to the
     * journal (a supervisor retrying would otherwise leave them alive until a start succeeds; without a guardian, for
     * good). What stops the ending is added to {@code failure}, which is said as before.
     */
    private static void endDeadOwnersProcesses(OwnerRecord previous, RuntimeException failure) {
        if (previous == null) {
            return;
        }
        try {
            CrashRecovery.endContainment(previous);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure.addSuppressed(e);
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * {@link MailboxStore#restoreCutLength}, said on stderr when it restored something (a close's abort says it too); on
     * the thread that caught a memory fault (the drainer's, the close engine's), first lets go of the ring cursors'
     * locks the fault left held ({@link RingDrainer#releaseLocksLeftByFault}).
     */
    String restoreCutMailboxFile() {
        drainer.releaseLocksLeftByFault();
        String restored = mailboxes.restoreCutLength();
        if (restored != null) {
            System.err.println("vigil: " + restored);
        }
        return restored;
    }

    /**
     * What a thread that met a memory fault calls: {@link #restoreCutMailboxFile}, or, when another thread restored the
     * file since this one last asked, that restore's words. The ring drainer and the close engine both touch the map,
     * and the JVM raises the fault at a later instruction on each: the second to meet it found the length restored
     * already and, told "nothing was cut", aborted its close as "memory fault on a mapped journal file" (seen in
     * MisbehavingChildTest's mid-close cut at load 20). Null when no cut explains the fault.
     */
    String repairAfterMemoryFault() {
        return cutSince(restoresSeenByThisThread.get());
    }

    /**
     * {@link #restoreCutMailboxFile}'s words for a cut no thread met yet; else, when the map was restored since the
     * restore count {@code seen[0]} (what a caller saw last: per thread for a fault, per start for its readiness poll),
     * the last restore's words; else null. {@code seen[0]} becomes the count now.
     */
    String cutSince(long[] seen) {
        String now = restoreCutMailboxFile();
        MailboxStore.Restores restores = mailboxes.restores();
        boolean since = restores.count() != seen[0];
        seen[0] = restores.count();
        return now != null ? now : since ? restores.last() : null;
    }

    /** What {@code opening} made (the mailbox map, ...); its own failure is rethrown as it was. */
    private static <T> T opened(CompletableFuture<T> opening) {
        try {
            return opening.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    /**
     * After a failed open: the mailbox map, once its opening ends (waited for: what it created is removed next), is
     * closed again. Its own failure to open or close (e.g. its owner marker in a read-only dir) is not the one that
     * ended the start, which is said instead (before, a close failing here hid it).
     */
    private static void closeWhenOpened(CompletableFuture<MailboxStore> opening) {
        try {
            opening.join().close();
        } catch (RuntimeException failedToo) {
            // its failure is not the one that ended the start
        }
    }

    private void closeAfterFailedOpen(JournalWriter writer, Spawner s, MailboxStore m, RingDrainer d, Containment c, Guardian g) {
        try {
            if (d != null) {
                d.close();
            }
            if (m != null) {
                m.close();
            }
            if (g != null) {
                g.standDown();
            }
            if (s != null) {
                s.close();
            }
            if (c != null) {
                c.close();
            }
            if (ownsJournal) {
                writer.close();
            }
        } finally {
            ownership.release(false);
            leftovers.removeCreated();
        }
    }

    /**
     * A damaged journal this open set aside before it began a fresh one at the configured path: where it went
     * ({@code dir}), the damage the read met, and the last event read whole before it (-1: none).
     */
    public record SetAside(Path dir, String damage, long lastGoodIndex) {
        /** One line: what was damaged, where it went, and that the run journals into a fresh journal at {@code journal}. */
        public String describe(Path journal) {
            return "journal dir=" + journal + " was damaged (" + damage + "): set aside as " + dir
                    + " (vigil-replay reads it up to the damage" + (lastGoodIndex < 0 ? "" : ", last good index=0x"
                    + Long.toHexString(lastGoodIndex)) + "); journaling into a fresh journal at " + journal;
        }
    }

    /** The damaged journal this open set aside (its first event in the fresh journal says so); empty when none. */
    public java.util.Optional<SetAside> journalSetAside() {
        return java.util.Optional.ofNullable(setAside);
    }

    /** What this open recovered from a dead previous owner of the journal dir; empty when there was nothing. */
    public java.util.Optional<CrashRecovery.Outcome> recovery() {
        return java.util.Optional.ofNullable(recovery);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A file beside the journal directory: {@code <journal dir><suffix>} ({@link JournalOwner#sibling}: links resolved). */
    static Path sibling(Path journalDir, String suffix) {
        return JournalOwner.sibling(journalDir, suffix);
    }

    public PoolJournal journal() {
        return journal;
    }

    /**
     * Where the children's own log files go ({@link Pool.Builder#childLogs}): {@code <journal dir>-logs}, one
     * directory per pool, {@code <group>-<index>.out} and {@code .err} in it.
     */
    public Path childLogDir() {
        return sibling(journal.writer().dir(), "-logs");
    }

    /** How pools are contained (a cgroup per pool, or process groups), chosen once at open and journaled. */
    public Containment containment() {
        return containment;
    }

    public Spawner spawner() {
        return spawner;
    }

    public MailboxStore mailboxes() {
        return mailboxes;
    }

    public RingDrainer drainer() {
        return drainer;
    }

    /** The one close engine every pool of this orchestrator closes through (one thread). */
    public CloseEngine closeEngine() {
        return engine;
    }

    /** The close settings pools get unless their builder says otherwise. */
    public CloseSettings closeSettings() {
        return closeSettings;
    }

    /** Where the spawn shim and the C demo child live. */
    public Path nativeDir() {
        return runtimes.nativeDir();
    }

    /** The class path a Java child runs with: the orchestrator's own classes directory or jar, then its spec's class path. */
    public String childClassPath() {
        return runtimes.javaClassPath();
    }

    /** The interpreters and runtime files children are started with. */
    public ChildRuntimes childRuntimes() {
        return runtimes;
    }

    /**
     * The one thread that restarts children after their backoff ({@link ExitPolicy#restart}): daemon
     * {@code vigil-supervisor}, started by the first restart, stopped first by {@link #close()}. Null once closed.
     */
    synchronized java.util.concurrent.ScheduledExecutorService supervisor() {
        if (closed.get()) {
            return null;
        }
        if (supervisor == null) {
            supervisor = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "vigil-supervisor");
                t.setDaemon(true);
                return t;
            });
        }
        return supervisor;
    }

    /** True once {@link #close()} began. */
    boolean isClosing() {
        return closed.get();
    }

    /**
     * Stops every pool start in progress and refuses new ones, for good: a start between two spawns spawns no
     * more, one waiting for its children's INIT_READY stops waiting, and each closes what it started (its
     * rollback close, journaled) and throws {@link PoolStartException} naming {@code reason}. bin/vigil calls it
     * on the first Ctrl-C or SIGTERM; {@link #close()} calls it first. Safe from any thread, never blocks.
     */
    public void stopStarts(String reason) {
        if (startsStopped == null) {
            startsStopped = Objects.requireNonNull(reason, "reason");
        }
    }

    /** Why starts were stopped ({@link #stopStarts}), or null while they are allowed. */
    String startsStopped() {
        return startsStopped;
    }

    /**
     * Takes {@code poolId} for a pool about to start: refused when an open pool of this orchestrator has that id, or an
     * id naming the same child log files ({@link dev.vigil.spawn.ChildLog#sameFiles}): their children would share log
     * files, a container and journal lines under one id. Freed by {@link #freePoolId} once that pool's start failed or
     * its close left nothing tracked.
     */
    void takePoolId(String poolId) {
        String clash;
        synchronized (openPoolIds) {
            clash = dev.vigil.spawn.ChildLog.sameFiles(openPoolIds, poolId, "open pool's id");
        }
        if (clash != null) {
            throw new IllegalArgumentException("poolId: " + clash + " (an id is free again once its pool's close"
                    + " left nothing tracked)");
        }
    }

    void freePoolId(String poolId) {
        synchronized (openPoolIds) {
            openPoolIds.remove(dev.vigil.spawn.ChildLog.fileName(poolId), poolId);
        }
    }

    /** A started pool; closed at {@link #close()} if it still tracks children then. */
    void register(Pool pool) {
        pools.add(pool);
    }

    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        synchronized (this) {
            if (supervisor != null) {
                supervisor.shutdownNow(); // no restart after this; one under way is fenced out by its pool's close
            }
        }
        stopStarts("the orchestrator is closing");
        java.util.concurrent.CountDownLatch poolsClosed = watchClosesInProgress();
        RuntimeException failure = null;
        for (Pool pool : pools) {
            try {
                pool.closeAtOrchestratorShutdown();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        poolsClosed.countDown(); // cancels the watchdog
        pools.clear();
        try {
            closeParts();
        } catch (RuntimeException e) {
            if (failure != null) {
                e.addSuppressed(failure);
            }
            throw e;
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * {@link #close()}'s bound on the closes other threads run: when some run as it begins, a watchdog thread waits
     * {@link #closePatience} for the returned latch (counted down once the pools are closed); closes still in progress
     * then are escalated now ({@link CloseEngine#escalateAll}, origin journaled in EscalateNowRequested) and one stderr
     * line names them and the wait. Otherwise no thread is started.
     */
    private java.util.concurrent.CountDownLatch watchClosesInProgress() {
        java.util.concurrent.CountDownLatch poolsClosed = new java.util.concurrent.CountDownLatch(1);
        if (engine.closesInProgress().isEmpty()) {
            return poolsClosed;
        }
        long began = System.nanoTime();
        Thread watchdog = new Thread(() -> {
            try {
                if (poolsClosed.await(closePatience.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
            java.util.List<String> closes = engine.closesInProgress();
            if (closes.isEmpty()) {
                return;
            }
            String waited = String.format(java.util.Locale.ROOT, "%.1f s", (System.nanoTime() - began) / 1e9);
            engine.escalateAll("orchestrator close after " + waited);
            System.err.println("vigil: orchestrator close waited " + waited + " (patience " + closePatience.toMillis()
                    + " ms) for closes in progress, escalated now (SIGKILL): " + String.join(", ", closes));
        }, "vigil-close-patience");
        watchdog.setDaemon(true);
        watchdog.start();
        return poolsClosed;
    }

    /** A pool left holding processes by {@link #leave()}: its container and what is alive in it. */
    public record KeptPool(String poolId, long lastCloseId, String container, Path cgroup,
            java.util.List<dev.vigil.contain.ContainedProcess> processes) {
    }

    /**
     * Ends this orchestrator but keeps what its closed pools kept (survivors of a LEAK close, kept strays): they stay
     * alive with their mailboxes and their container (the children of a LEAK pool armed no PDEATHSIG), PoolKept is
     * journaled for each such pool, the guardian stands down, and the owner record stays beside the journal, so that
     * {@code vigil reap JOURNAL_DIR} (or the next orchestrator on this journal dir) ends and frees them later. No close
     * is run for a kept pool; a pool never closed is closed as {@link #close()} does. Returns the kept pools.
     */
    public java.util.List<KeptPool> leave() {
        if (closed.getAndSet(true)) {
            return java.util.List.of();
        }
        java.util.List<KeptPool> kept = new java.util.ArrayList<>();
        RuntimeException failure = null;
        for (Pool pool : pools) {
            try {
                java.util.Optional<dev.vigil.close.decision.CloseReport> last = pool.lastReport();
                dev.vigil.contain.PoolContainment container = pool.containment();
                boolean holds = !pool.trackedChildren().isEmpty() || container != null && !container.isEmpty();
                if (last.isPresent() && holds) {
                    kept.add(keep(pool, last.get().closeId(), container));
                } else {
                    pool.closeAtOrchestratorShutdown();
                }
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        pools.clear();
        journal.writer().flush();
        try {
            engine.close();
        } finally {
            try {
                if (guardian != null) {
                    guardian.standDown(); // a normal exit: it must not kill what is kept
                }
                containment.close(); // removes the emptied pool containers only
                drainer.close();
                drainer.drainAll(0);
            } finally {
                // The spawner is not closed: its close would SIGKILL the kept processes.
                closeStores(!kept.isEmpty());
            }
        }
        if (failure != null) {
            throw failure;
        }
        return kept;
    }

    private KeptPool keep(Pool pool, long lastCloseId, dev.vigil.contain.PoolContainment container) {
        java.util.List<dev.vigil.contain.ContainedProcess> alive = new java.util.ArrayList<>();
        if (container != null) {
            for (dev.vigil.contain.ContainedProcess p : container.processes()) {
                if (!p.isZombie()) {
                    alive.add(p);
                }
            }
        }
        java.util.Set<Integer> listed = new java.util.HashSet<>();
        alive.forEach(p -> listed.add(p.pid()));
        for (PoolChild c : pool.trackedChildren()) {
            if (!c.exit().isDone() && listed.add(c.pid())) {
                alive.add(new dev.vigil.contain.ContainedProcess(c.pid(), (int) ProcessHandle.current().pid(), 'S',
                        String.join(" ", c.process().argv())));
            }
        }
        String where = container == null ? "" : container.describe();
        String endWith = "vigil reap " + journal.writer().dir().toAbsolutePath();
        journal.append(new dev.vigil.journal.PoolKept(MonotonicClock.nanos(), journal.orchestratorPid(), pool.poolId(),
                lastCloseId, containment.mode().label(), where, alive.size(),
                alive.stream().map(dev.vigil.contain.ContainedProcess::toString).collect(java.util.stream.Collectors.joining("; ")),
                endWith));
        return new KeptPool(pool.poolId(), lastCloseId, where, container == null ? null : container.cgroup(), alive);
    }

    /**
     * The last steps of {@link #close()} and {@link #leave()}: the mailbox map, then the journal (closed if this
     * orchestrator opened it, else flushed), then the journal dir's ownership ({@code keepOwnerRecord}: kept
     * processes remain for {@code vigil reap}).
     */
    private void closeStores(boolean keepOwnerRecord) {
        try {
            mailboxes.close();
        } finally {
            try {
                if (ownsJournal) {
                    journal.writer().close();
                } else {
                    journal.writer().flush();
                }
            } finally {
                ownership.release(keepOwnerRecord);
            }
        }
    }

    private void closeParts() {
        try {
            engine.close();
        } finally {
            try {
                killContainers();
                drainer.close();
                restoreCutMailboxFile(); // the last drain reads every ring
                drainer.drainAll(0);
            } finally {
                try {
                    spawner.close();
                } finally {
                    closeStores(false);
                }
            }
        }
    }

    /**
     * Whatever is still in a pool container (nothing after a TERM_THEN_KILL close) dies with the orchestrator;
     * then the guardian stands down.
     */
    private void killContainers() {
        try {
            containment.killAll(CONTAINER_KILL_BOUND_NANOS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            containment.close();
            if (guardian != null) {
                guardian.standDown();
            }
        }
    }

    /** The guardian that cleans up if this process dies; null when vigil.guardian=off. */
    public Guardian guardian() {
        return guardian;
    }

    /** Builds an {@link Orchestrator}; a journal (directory or writer) is required. */
    public static final class Builder {
        private Path journalDir;
        private JournalWriter journal;
        private Path mailboxFile;
        private int maxMailboxes = 256;
        private SpawnerOptions spawnerOptions;
        private CloseSettings closeSettings;
        private ContainmentSettings containmentSettings;
        private RingSettings ringSettings;
        private Duration closePatience = CLOSE_PATIENCE;

        /** Journal directory (opened and owned by the orchestrator). */
        public Builder journalDir(Path dir) {
            this.journalDir = Objects.requireNonNull(dir, "journalDir");
            return this;
        }

        /** An already open journal (not closed by the orchestrator, only flushed). */
        public Builder journal(JournalWriter writer) {
            this.journal = Objects.requireNonNull(writer, "journal");
            return this;
        }

        /** What a failed start removes again; null when the journal was handed over open. */
        private StartLeftovers leftovers;

        /** The mailbox map file of an orchestrator on {@code dir}: the one set, else the default beside the journal. */
        Path mapFile(Path dir) {
            return mailboxFile != null ? mailboxFile : sibling(dir, "-mailboxes.map");
        }

        /** The mailbox map file; default {@code <journal dir>-mailboxes.map} next to the journal. */
        public Builder mailboxFile(Path file) {
            this.mailboxFile = file;
            return this;
        }

        /** Sizes the mailbox map (default 256). */
        public Builder maxMailboxes(int n) {
            this.maxMailboxes = n;
            return this;
        }

        public Builder spawnerOptions(SpawnerOptions options) {
            this.spawnerOptions = options;
            return this;
        }

        /** Default close settings of its pools. */
        public Builder closeSettings(CloseSettings settings) {
            this.closeSettings = settings;
            return this;
        }

        /** How pools are contained (default {@link ContainmentSettings#defaults()}: a cgroup per pool where possible). */
        public Builder containment(ContainmentSettings settings) {
            this.containmentSettings = settings;
            return this;
        }

        /** Transition-ring capacity, writer wait and flow control (default: {@link RingSettings#from} system properties). */
        public Builder ringSettings(RingSettings settings) {
            this.ringSettings = Objects.requireNonNull(settings, "ringSettings");
            return this;
        }

        /**
         * How long {@link Orchestrator#close()} waits for closes other threads run (a child that acknowledged shutdown
         * and keeps beating holds a close without hard cap open) before escalating them (default {@link Orchestrator#CLOSE_PATIENCE}).
         */
        public Builder closePatience(Duration patience) {
            if (patience.isNegative()) {
                throw new IllegalArgumentException("closePatience: " + patience.toMillis() + " ms is negative");
            }
            this.closePatience = patience;
            return this;
        }

        public Orchestrator open() {
            if (containmentSettings == null) {
                containmentSettings = ContainmentSettings.defaults();
            }
            if (journalDir == null && journal == null) {
                throw new IllegalArgumentException("orchestrator needs a journal: journalDir or journal");
            }
            if (spawnerOptions == null) {
                spawnerOptions = SpawnerOptions.defaults();
            }
            if (closeSettings == null) {
                closeSettings = CloseSettings.from(System::getProperty);
            }
            if (ringSettings == null) {
                ringSettings = RingSettings.from(System::getProperty);
            }
            if (journalDir != null) {
                // Noted before anything is created: a start that fails removes what it created (and only that).
                leftovers = StartLeftovers.note(journalDir, mapFile(journalDir), sibling(journalDir, JournalOwner.LOCK_SUFFIX),
                        sibling(journalDir, "-pgroups"));
                try {
                    Files.createDirectories(journalDir);
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException("journalDir=" + journalDir + " cannot be created: " + JournalException.plain(e), e);
                }
            }
            return new Orchestrator(this);
        }
    }
}
