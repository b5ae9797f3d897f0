package dev.vigil.pool;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;

import dev.vigil.child.ChildKind;
import dev.vigil.child.SpawnedChild;
import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.mailbox.InitOutcome;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxId;
import dev.vigil.mailbox.MailboxStore;
import dev.vigil.mailbox.ProtocolMode;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.SpawnFileAction;
import org.HdrHistogram.Histogram;

/**
 * {@code bin/vigil-bench idle}: what an idle child costs and how fast a sleeping one answers (docs/BENCHMARKS.md,
 * "Idle children"). In one run:
 * <ol>
 * <li>CPU of N idle C children and N idle Java children of one pool over a window (every thread's
 *     /proc/PID/task/TID/schedstat, in nanoseconds), doorbell on; then the same for a few children with
 *     {@code VIGIL_CHILD_DOORBELL=off} (the polling loop of before), as the baseline; and for 4x that many bare JVMs,
 *     started with a Java child's very argv but a main that only parks ({@link ParkedJvmMain}): the floor an idle Java
 *     child cannot go below, whatever Vigil does;</li>
 * <li>control round trip to a child asleep on its doorbell (each command sent only once the child announced its
 *     sleep), and back to back (the child spinning), C and Java;</li>
 * <li>16 busy C children on this machine's cores, each driven back to back by its own parent thread: the mailbox
 *     round trip against a one-byte pipe ping-pong between the same processes.</li>
 * </ol>
 * Arguments: idle children per kind (100), window seconds (10), baseline children per kind (5), parts (idle,busy),
 * settle seconds before a CPU window (10).
 */
public final class IdleBench {
    private static final POSIX POSIX = POSIXFactory.getNativePOSIX();
    private static final long TICK_NANOS = 1_000_000_000L / 100; // USER_HZ
    /** How long the children are left alone before a CPU window (a JVM child still compiles its start-up for seconds). */
    private static Duration SETTLE = Duration.ofSeconds(10);
    /** This run's figures by name, for the summary rows. */
    private static final java.util.Map<String, Double> FIGURES = new java.util.HashMap<>();

    public static void main(String[] args) throws Exception {
        int perKind = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int windowSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int baseline = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String parts = args.length > 3 ? args[3] : "idle,busy";
        SETTLE = Duration.ofSeconds(args.length > 4 ? Integer.parseInt(args[4]) : 10);
        Path tmp = dev.vigil.journal.TestFiles.tempTreeDeletedAtExit("vigil-idle-bench");
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d cpus; load before: %s%n%n", Runtime.getRuntime().availableProcessors(), load()));
        if (parts.contains("idle")) {
            idle(tmp, out, perKind, windowSeconds, baseline);
        }
        if (parts.contains("busy")) {
            out.append('\n').append(busy(tmp, 16));
        }
        out.append(String.format(Locale.ROOT, "%nload after: %s%n", load()));
        System.out.print(out);
        summary();
    }

    private static void idle(Path tmp, StringBuilder out, int perKind, int windowSeconds, int baseline) throws Exception {
        List<String> jvm = new ArrayList<>(List.of("-Xmx32m", "-Xss256k"));
        String extra = System.getProperty("vigil.bench.jvm", "");
        if (!extra.isBlank()) {
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        ChildSpec c = ChildSpec.cDemo();
        ChildSpec java = ChildSpec.java(DemoHandler.class.getName()).withJvmOptions(jvm.toArray(String[]::new));
        out.append("Java children: default flags of ChildSpec.java plus ").append(String.join(" ", jvm)).append("\n\n");
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).maxMailboxes(2 * perKind + 2 * baseline + 16)
                .closeSettings(CloseSettings.defaults()).open()) {
            out.append("| children | doorbell | whole-process CPU over ").append(windowSeconds).append(" s (all) | per child, % of a core | load at end |\n");
            out.append("|---|---|---:|---:|---|\n");
            try (Pool pool = Pool.builder(o, "idle").group("c", perKind, c).group("java", perKind, java)
                    .startTimeout(Duration.ofSeconds(300)).start()) {
                touchAll(pool);
                LockSupport.parkNanos(SETTLE.toNanos()); // every child past its spin and yield, asleep, its start-up compiled
                out.append(cpuRow(pool, "c", perKind + " C", "on", windowSeconds));
                out.append(cpuRow(pool, "java", perKind + " Java", "on", windowSeconds));
                out.append(cpuOrchestrator(windowSeconds, perKind));
                out.append('\n');
                out.append(roundTrips(pool));
                out.append(wakeReference(o, tmp));
            }
            // The floor of an idle Java child: a JVM started with the very argv of a Java child but whose main only parks
            // (no mailbox, no doorbell, no serve loop): what its own timers cost, whatever Vigil does.
            List<String> argv = new ArrayList<>(java.argv(o.childRuntimes()));
            int main = argv.indexOf("dev.vigil.child.ChildMain");
            argv.subList(main, main + 2).clear();
            argv.add(main, ParkedJvmMain.class.getName());
            int cp = argv.indexOf("-cp") + 1;
            argv.set(cp, argv.get(cp) + File.pathSeparator
                    + Path.of(ParkedJvmMain.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
            ChildSpec bare = ChildSpec.exec(argv.get(0), argv.subList(1, argv.size()).toArray(String[]::new));
            try (Pool pool = Pool.builder(o, "bare").group("jvm", 4 * baseline, bare).startTimeout(Duration.ofSeconds(120)).start()) {
                LockSupport.parkNanos(SETTLE.toNanos());
                String row = cpuRow(pool, "jvm", 4 * baseline + " bare JVMs", "none (a parked main, the Java child's argv)", windowSeconds);
                int at = out.indexOf("\n\n", out.indexOf("| children |"));
                out.insert(at + 1, row);
            }
            try (Pool pool = Pool.builder(o, "poll").group("c", baseline, c.withEnv("VIGIL_CHILD_DOORBELL", "off"))
                    .group("java", baseline, java.withEnv("VIGIL_CHILD_DOORBELL", "off")).startTimeout(Duration.ofSeconds(120)).start()) {
                touchAll(pool);
                LockSupport.parkNanos(SETTLE.toNanos());
                StringBuilder rows = new StringBuilder();
                rows.append(cpuRow(pool, "c", baseline + " C", "off (polling, before)", windowSeconds));
                rows.append(cpuRow(pool, "java", baseline + " Java", "off (polling, before)", windowSeconds));
                int at = out.indexOf("\n\n", out.indexOf("| children |"));
                out.insert(at + 1, rows);
            }
        }
    }

    private static void touchAll(Pool pool) {
        for (PoolChild child : pool.children()) {
            pool.control(child.group(), child.index(), DemoHandler.OP_ECHO, 1, Duration.ofSeconds(60));
        }
    }

    private static String cpuRow(Pool pool, String group, String label, String doorbell, int windowSeconds) throws IOException {
        List<PoolChild> children = pool.children().stream().filter(ch -> ch.group().equals(group)).toList();
        List<java.util.Map<String, Long>> before = new ArrayList<>();
        for (PoolChild ch : children) {
            before.add(threadNanos(ch.pid()));
        }
        long start = System.nanoTime();
        LockSupport.parkNanos(Duration.ofSeconds(windowSeconds).toNanos());
        long used = 0;
        for (int i = 0; i < children.size(); i++) {
            java.util.Map<String, Long> threadsBefore = before.get(i);
            java.util.Map<String, Long> threadsAfter = threadNanos(children.get(i).pid());
            if (i == 0 && Boolean.getBoolean("vigil.bench.threads")) {
                threadsAfter.forEach((name, ns) -> System.out.printf(Locale.ROOT, "  thread %s: %d us%n", name,
                        (ns - threadsBefore.getOrDefault(name, 0L)) / 1000));
            }
            // per thread alive at the end (a thread that ended in the window takes its schedstat with it)
            for (var t : threadsAfter.entrySet()) {
                used += t.getValue() - threadsBefore.getOrDefault(t.getKey(), 0L);
            }
        }
        long wall = System.nanoTime() - start;
        double perChild = 100.0 * used / wall / children.size();
        FIGURES.put("cpu " + group + " " + (doorbell.equals("on") ? "on" : doorbell.startsWith("none") ? "bare" : "off"), perChild);
        return String.format(Locale.ROOT, "| %s | %s | %d ms | %.4f %% | %s |%n", label, doorbell, used / 1_000_000, perChild, load());
    }

    private static String cpuOrchestrator(int windowSeconds, int perKind) throws IOException {
        long before = ticks((int) ProcessHandle.current().pid());
        long start = System.nanoTime();
        LockSupport.parkNanos(Duration.ofSeconds(windowSeconds).toNanos());
        long used = (ticks((int) ProcessHandle.current().pid()) - before) * TICK_NANOS;
        return String.format(Locale.ROOT, "| the orchestrator of those %d (drainer, reaper, journal, this bench's JVM) | | %d ms | %.4f %% | %s |%n",
                2 * perKind, used / 1_000_000, 100.0 * used / (System.nanoTime() - start), load());
    }

    /** Per-thread CPU (schedstat nanoseconds) keyed by tid:comm. */
    static java.util.Map<String, Long> threadNanos(int pid) throws IOException {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                long nanos = ThreadCpu.onCpu(task);
                try {
                    if (nanos >= 0) {
                        m.put(task.getFileName() + ":" + Files.readString(task.resolve("comm")).trim(), nanos);
                    }
                } catch (IOException gone) {
                    // ended meanwhile
                }
            }
        }
        return m;
    }

    /** The CPU a task last ran on (field 39 of a /proc stat file): for a sleeping task, where its next wake-up starts. */
    private static int lastCpu(String stat) throws IOException {
        String line = Files.readString(Path.of(stat));
        return Integer.parseInt(line.substring(line.lastIndexOf(')') + 2).split(" ")[36]);
    }

    /** utime + stime of every thread of {@code pid}, in clock ticks (/proc/PID/stat fields 14 and 15). */
    static long ticks(int pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    private static String roundTrips(Pool pool) throws IOException {
        StringBuilder s = new StringBuilder();
        StringBuilder parts = new StringBuilder("\nWhere a round trip from asleep goes, from the transition ring's own stamps (CLOCK_MONOTONIC, both sides): "
                + "the parent's CONTROL_REQUEST record, the child's CONTROL_DONE record, the parent's IDLE record once it saw the answer; each cell p50 / p90 in us.\n"
                + "| child | call to request published | published to answered (ring, child's wake, serve) | answered to seen by the parent | seen to call returned | n |\n"
                + "|---|---:|---:|---:|---:|---:|\n");
        s.append("| control round trip | child | p50 us | p90 us | p99 us | n |\n|---|---|---:|---:|---:|---:|\n");
        for (String group : List.of("c", "java")) {
            Histogram asleep = new Histogram(3_600_000_000L, 3);
            // a C child's round trips from asleep again, by where it went to sleep: the parent thread's CPU or another
            Histogram[] byPlace = {new Histogram(3_600_000_000L, 3), new Histogram(3_600_000_000L, 3)};
            Histogram busy = new Histogram(3_600_000_000L, 3);
            Histogram[] split = new Histogram[4];
            for (int j = 0; j < split.length; j++) {
                split[j] = new Histogram(3_600_000_000L, 3);
            }
            int sample = (int) pool.children().stream().filter(ch -> ch.group().equals(group)).count();
            for (int i = 0; i < Math.min(5, sample); i++) {
                PoolChild child = pool.child(group, i);
                MailboxHandle h = child.mailbox();
                for (int k = 0; k < 40; k++) {
                    while (h.mailbox().sleepingVolatile() == 0) {
                        LockSupport.parkNanos(200_000);
                    }
                    LockSupport.parkNanos(1_000_000); // well inside its sleep
                    int apart = group.equals("c") && lastCpu("/proc/" + h.childPid() + "/stat") != lastCpu("/proc/thread-self/stat") ? 1 : 0;
                    long t = System.nanoTime();
                    h.control(DemoHandler.OP_ECHO, k, Duration.ofSeconds(10));
                    long returned = System.nanoTime();
                    asleep.recordValue(returned - t);
                    byPlace[apart].recordValue(returned - t);
                    split(h.mailbox(), t, returned, split);
                }
            }
            MailboxHandle h = pool.child(group, 0).mailbox();
            for (int k = 0; k < 60_000; k++) {
                long t = System.nanoTime();
                h.control(DemoHandler.OP_ECHO, k, Duration.ofSeconds(10));
                if (k >= 20_000) {
                    busy.recordValue(System.nanoTime() - t);
                }
            }
            s.append(row("from asleep (doorbell rung)", group, asleep));
            if (group.equals("c")) {
                s.append(row("from asleep, child asleep on the calling thread's CPU", group, byPlace[0]))
                        .append(row("from asleep, child asleep on another CPU", group, byPlace[1]));
            }
            s.append(row("back to back (child spinning)", group, busy));
            parts.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %d |%n", group.equals("c") ? "C" : "Java", p50p90(split[0]), p50p90(split[1]),
                    p50p90(split[2]), p50p90(split[3]), split[0].getTotalCount()));
            FIGURES.put("asleep " + group, asleep.getValueAtPercentile(50) / 1e3);
            FIGURES.put("busy " + group, busy.getValueAtPercentile(50) / 1e3);
        }
        return s.append(parts).append('\n').toString();
    }

    /**
     * Splits one round trip [{@code called}, {@code returned}] at the stamps of its three ring records (the parent's
     * CONTROL_REQUEST, the child's CONTROL_DONE, the parent's IDLE: the last three tickets) into {@code into}: call to
     * published, published to answered, answered to seen, seen to returned. A round trip whose records are not those
     * three (a concurrent writer) is left out.
     */
    private static void split(dev.vigil.mailbox.MappedMailbox mailbox, long called, long returned, Histogram[] into) {
        long head = mailbox.ringHeadAcquire();
        dev.vigil.mailbox.TransitionRecord request = mailbox.readRing(head - 3);
        dev.vigil.mailbox.TransitionRecord done = mailbox.readRing(head - 2);
        dev.vigil.mailbox.TransitionRecord idle = mailbox.readRing(head - 1);
        if (request.toState() != dev.vigil.mailbox.MailboxState.CONTROL_REQUEST || done.toState() != dev.vigil.mailbox.MailboxState.CONTROL_DONE
                || idle.toState() != dev.vigil.mailbox.MailboxState.IDLE) {
            return;
        }
        long[] stamps = {called, request.timeNanos(), done.timeNanos(), idle.timeNanos(), returned};
        for (int j = 0; j < into.length; j++) {
            into[j].recordValue(Math.max(0, stamps[j + 1] - stamps[j]));
        }
    }

    private static String p50p90(Histogram h) {
        return String.format(Locale.ROOT, "%.1f / %.1f", h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3);
    }

    /**
     * The floor in the same run: vigil-wake-reference's round trip to a sleeping C process (no JVM, no protocol), woken
     * through a futex on a shared word and through a pipe, 200 rounds each, each after 1 ms asleep; then the futex
     * round trip with both processes pinned to one CPU and with the child pinned to the other one (where the scheduler
     * put them decides most of a wake-up's cost on this VM: docs/BENCHMARKS.md, "Idle children").
     */
    private static String wakeReference(Orchestrator o, Path tmp) throws Exception {
        StringBuilder s = new StringBuilder();
        for (String run : List.of("futex", "pipe", "futex same", "futex apart")) {
            List<String> argv = new java.util.ArrayList<>(List.of(run.split(" "))); // mode [placement]
            argv.add(0, Path.of(System.getProperty("vigil.native.dir", "native/build")).resolve("vigil-wake-reference").toString());
            argv.add(2, "200");
            Path output = tmp.resolve("wake-" + run.replace(' ', '-') + ".txt");
            dev.vigil.spawn.ChildProcess reference = o.spawner().spawn(dev.vigil.spawn.SpawnRequest.of(argv)
                    .withStdout(dev.vigil.spawn.Redirect.writeTo(output)));
            dev.vigil.spawn.ExitStatus status = reference.onExit().get(60, java.util.concurrent.TimeUnit.SECONDS);
            java.util.Map<String, Long> f = new java.util.HashMap<>();
            for (String line : Files.readAllLines(output)) {
                String[] w = line.split(" ");
                f.put(w[0], Long.parseLong(w[1]));
            }
            if (status.exitCode() != 0 || !f.containsKey("p50_ns")) {
                throw new IllegalStateException("vigil-wake-reference " + run + " failed: " + status.describe() + " output=" + f);
            }
            FIGURES.put("floor " + run, f.get("p50_ns") / 1e3);
            String placed = !f.containsKey("child_cpu") ? "" : String.format(Locale.ROOT, ", parent on CPU %d, child on CPU %d",
                    f.get("parent_cpu"), f.get("child_cpu"));
            s.append(String.format(Locale.ROOT, "| from asleep, C reference (vigil-wake-reference %s: two C processes%s) | C | %.2f | %.2f | %.2f | %d |%n",
                    run, placed, f.get("p50_ns") / 1e3, f.get("p90_ns") / 1e3, f.get("p99_ns") / 1e3, f.get("rounds")));
        }
        return s.toString();
    }

    private static String row(String what, String group, Histogram h) {
        return String.format(Locale.ROOT, "| %s | %s | %.2f | %.2f | %.2f | %d |%n", what, group.equals("c") ? "C" : "Java",
                h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3, h.getTotalCount());
    }

    /** {@code n} C children, each driven back to back by its own thread: mailbox, then pipe ping-pong, alternating rounds. */
    private static String busy(Path tmp, int n) throws Exception {
        Histogram mailbox = new Histogram(3_600_000_000L, 3);
        Histogram pipe = new Histogram(3_600_000_000L, 3);
        ExecutorService threads = Executors.newFixedThreadPool(n);
        List<SpawnedChild> children = new ArrayList<>();
        try (MailboxStore store = MailboxStore.createOrOpen(tmp.resolve("busy.map"), n)) {
            List<Callable<Void>> drivers = new ArrayList<>();
            CountDownLatch ready = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                MailboxHandle handle = store.allocate(new MailboxId("busy", "c", i), ProtocolMode.STICKY);
                int[] toChild = new int[2];
                int[] fromChild = new int[2];
                if (POSIX.pipe(toChild) != 0 || POSIX.pipe(fromChild) != 0) {
                    throw new IllegalStateException("pipe failed: errno=" + POSIX.errno());
                }
                List<SpawnFileAction> actions = List.of(SpawnFileAction.dup(toChild[0], 0), SpawnFileAction.dup(fromChild[1], 1),
                        SpawnFileAction.close(toChild[0]), SpawnFileAction.close(toChild[1]), SpawnFileAction.close(fromChild[0]),
                        SpawnFileAction.close(fromChild[1]), SpawnFileAction.open("/dev/null", 2, 1, 0));
                children.add(SpawnedChild.spawn(ChildKind.C.argv(List.of()), ChildKind.C.env(handle, DemoBehaviour.DEFAULT), actions));
                POSIX.close(toChild[0]);
                POSIX.close(fromChild[1]);
                if (handle.awaitInit(Duration.ofSeconds(30)) != InitOutcome.READY) {
                    throw new IllegalStateException("child not ready: " + handle);
                }
                drivers.add(() -> {
                    Histogram m = new Histogram(3_600_000_000L, 3);
                    Histogram p = new Histogram(3_600_000_000L, 3);
                    ready.countDown();
                    ready.await();
                    for (int round = 0; round < 6; round++) {
                        Histogram intoM = round == 0 ? null : m;
                        Histogram intoP = round == 0 ? null : p;
                        for (int k = 0; k < 2_000; k++) {
                            long t = System.nanoTime();
                            handle.control(DemoHandler.OP_ECHO, k, Duration.ofSeconds(30));
                            if (intoM != null) {
                                intoM.recordValue(System.nanoTime() - t);
                            }
                        }
                        handle.sendControl(DemoHandler.OP_PIPE_PINGPONG, 2_000);
                        byte[] one = new byte[1];
                        for (int k = 0; k < 2_000; k++) {
                            long t = System.nanoTime();
                            if (POSIX.write(toChild[1], one, 1) != 1 || POSIX.read(fromChild[0], one, 1) != 1) {
                                throw new IllegalStateException("pipe round trip failed: errno=" + POSIX.errno());
                            }
                            if (intoP != null) {
                                intoP.recordValue(System.nanoTime() - t);
                            }
                        }
                        handle.awaitControl(Duration.ofSeconds(30));
                    }
                    synchronized (mailbox) {
                        mailbox.add(m);
                        pipe.add(p);
                    }
                    handle.publishShutdown(1);
                    POSIX.close(toChild[1]);
                    POSIX.close(fromChild[0]);
                    return null;
                });
            }
            String loadDuring = load();
            for (Future<Void> f : threads.invokeAll(drivers)) {
                f.get();
            }
            for (SpawnedChild child : children) {
                child.awaitExit(Duration.ofSeconds(30));
            }
            FIGURES.put("oversubscribed mailbox", mailbox.getValueAtPercentile(50) / 1e3);
            FIGURES.put("oversubscribed pipe", pipe.getValueAtPercentile(50) / 1e3);
            return String.format(Locale.ROOT, "%d busy C children on %d cpus, each driven back to back by its own thread (load at start %s):%n"
                    + "| via | p50 us | p90 us | p99 us | n |%n|---|---:|---:|---:|---:|%n%s%s", n, Runtime.getRuntime().availableProcessors(), loadDuring,
                    busyRow("mailbox", mailbox), busyRow("pipe (same processes)", pipe));
        } finally {
            threads.shutdownNow();
            for (SpawnedChild child : children) {
                child.close();
            }
        }
    }

    /** The summary rows (docs/BENCHMARKS.md's table) from this run's figures, for the parts that ran. */
    private static void summary() {
        for (String kind : List.of("c", "java")) {
            String name = kind.equals("c") ? "C" : "Java";
            Double on = FIGURES.get("cpu " + kind + " on");
            Double off = FIGURES.get("cpu " + kind + " off");
            if (on != null && off != null) {
                new dev.vigil.journal.bench.BenchSummary("idle " + name + " child CPU, % of a core (100 children, 10 s)",
                        String.format(Locale.ROOT, "%.4f %%", on), String.format(Locale.ROOT, "%.4f %% polling (before)", off),
                        dev.vigil.journal.bench.BenchSummary.ratio(on / off), "<= 0.01 %", on <= 0.01).print(System.out);
            }
            Double bare = FIGURES.get("cpu jvm bare");
            if (kind.equals("java") && on != null && bare != null) {
                dev.vigil.journal.bench.BenchSummary.reported("idle Java child CPU against a bare JVM of the same argv, % of a core",
                        String.format(Locale.ROOT, "%.4f %%", on), String.format(Locale.ROOT, "%.4f %% a JVM whose main parks", bare),
                        dev.vigil.journal.bench.BenchSummary.ratio(on / bare)).print(System.out);
            }
            Double asleep = FIGURES.get("asleep " + kind);
            Double floor = FIGURES.get(kind.equals("c") ? "floor futex" : "floor pipe");
            Double apart = kind.equals("c") ? FIGURES.get("floor futex apart") : null;
            if (asleep != null && floor != null) {
                new dev.vigil.journal.bench.BenchSummary("control round trip to a sleeping " + name + " child, p50",
                        String.format(Locale.ROOT, "%.1f us", asleep), String.format(Locale.ROOT, "%.1f us two C processes, %s%s",
                                floor, kind.equals("c") ? "futex" : "pipe", apart == null ? ""
                                        : String.format(Locale.ROOT, " (%.1f us with the child pinned to the other CPU)", apart)),
                        dev.vigil.journal.bench.BenchSummary.ratio(asleep / floor), "<= 50 us", asleep <= 50).print(System.out);
            }
        }
        Double m = FIGURES.get("oversubscribed mailbox");
        Double p = FIGURES.get("oversubscribed pipe");
        if (m != null && p != null) {
            dev.vigil.journal.bench.BenchSummary.reported("round trip, 16 busy C children on 2 cores, p50",
                    String.format(Locale.ROOT, "%.1f us", m), String.format(Locale.ROOT, "%.1f us pipe", p),
                    dev.vigil.journal.bench.BenchSummary.ratio(m / p)).print(System.out);
        }
    }

    private static String busyRow(String via, Histogram h) {
        return String.format(Locale.ROOT, "| %s | %.2f | %.2f | %.2f | %d |%n", via, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getTotalCount());
    }

    private static String load() throws IOException {
        String[] l = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return l[0] + " " + l[1] + " " + l[2];
    }
}
