package dev.vigil.close;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.SurvivorStacks;

/**
 * Captures each survivor's own (user-space) stacks before the close's first escalation signal, journals them
 * ({@link SurvivorStacks}) and hands the close a one-line summary per child for its report. Per kind: a Java child's
 * threads through {@code jcmd PID Thread.print}; a Python child's through {@code faulthandler} on SIGUSR2 (the
 * runtime arms it into a memfd named {@code vigil-stacks}, read through {@code /proc/PID/fd/N}: nothing on disk);
 * any other process's threads through {@code eu-stack -p PID} (elfutils), else {@code gdb -batch}. Where no tool is
 * present the summary says so in one line. Every capture is bounded by {@link #BOUND} (the tool is killed then);
 * the close waits for them at most that long before it signals. Tools run on two daemon threads, never on the
 * close engine's thread.
 */
public final class StackCapture implements CloseMachine.BeforeEscalation {
    /** How long a close waits, at most, for its survivors' stacks before its first escalation signal. */
    public static final Duration BOUND = Duration.ofSeconds(5);
    /** The journaled stacks are cut here. */
    static final int MAX_CHARS = 64 * 1024;
    private static final int SIGUSR2 = 12;
    private static final int TOP_FRAMES = 4;

    private final CloseJournal journal;
    private final ExecutorService workers = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "vigil-stack-capture");
        t.setDaemon(true);
        return t;
    });

    public StackCapture(CloseJournal journal) {
        this.journal = journal;
    }

    /** One capture: how, how long, the one-line summary and the tool's output. */
    public record Captured(String tool, long durationNanos, String summary, String stacks) {
    }

    @Override
    public long boundNanos() {
        return BOUND.toNanos();
    }

    @Override
    public CompletableFuture<Map<ClosingChild, String>> capture(String poolId, long closeId, List<ClosingChild> survivors) {
        long deadline = System.nanoTime() + BOUND.toNanos() - TimeUnit.MILLISECONDS.toNanos(200);
        Map<ClosingChild, String> summaries = java.util.Collections.synchronizedMap(new IdentityHashMap<>());
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (ClosingChild c : survivors) {
            all.add(CompletableFuture.runAsync(() -> {
                Captured s = capture(c, deadline);
                journal.append(new SurvivorStacks(MonotonicClock.nanos(), journal.orchestratorPid(), poolId, closeId,
                        c.group(), c.index(), c.pid(), s.tool(), s.durationNanos(), s.summary(), s.stacks()));
                summaries.put(c, s.summary());
            }, workers));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).handle((x, e) -> {
            synchronized (summaries) {
                return new IdentityHashMap<>(summaries);
            }
        });
    }

    /** Captures {@code c}'s stacks by the tool its kind calls for, giving up at {@code deadlineNanos} (System.nanoTime). */
    static Captured capture(ClosingChild c, long deadlineNanos) {
        long start = System.nanoTime();
        try {
            if (c.kind().equals("JAVA")) {
                Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
                if (!Files.isExecutable(jcmd)) {
                    return none(start, "no jcmd in " + jcmd.getParent() + " (a JRE without the JDK tools)");
                }
                return run("jcmd Thread.print", List.of(jcmd.toString(), Integer.toString(c.pid()), "Thread.print"),
                        start, deadlineNanos, StackCapture::summarizeJava);
            }
            if (c.kind().equals("PYTHON")) {
                return python(c, start, deadlineNanos);
            }
            Path euStack = onPath("eu-stack");
            if (euStack != null) {
                return run("eu-stack", List.of(euStack.toString(), "-p", Integer.toString(c.pid())), start, deadlineNanos,
                        StackCapture::summarizeNative);
            }
            Path gdb = onPath("gdb");
            if (gdb != null) {
                return run("gdb", List.of(gdb.toString(), "-p", Integer.toString(c.pid()), "-batch", "-nx", "-ex",
                        "thread apply all bt"), start, deadlineNanos, StackCapture::summarizeNative);
            }
            return none(start, "no stack tool on PATH for pid " + c.pid() + ": install elfutils (eu-stack) or gdb");
        } catch (IOException | RuntimeException e) {
            return new Captured("none", System.nanoTime() - start, "stack capture failed: " + e.getMessage(), "");
        }
    }

    private static Captured none(long start, String why) {
        return new Captured("none", System.nanoTime() - start, why, "");
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "/usr/bin:/bin" : path).split(":")) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    private static Captured run(String tool, List<String> command, long start, long deadlineNanos,
            java.util.function.Function<String, String> summarize) throws IOException {
        Path out = Files.createTempFile("vigil-stacks", ".txt");
        try {
            // A diagnostic tool, not a pool child: ProcessBuilder is fine here (the JDK reaps it by its own pid).
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            boolean done;
            try {
                done = p.waitFor(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                done = false;
            }
            if (!done) {
                p.destroyForcibly();
            }
            String text = cut(Files.readString(out, StandardCharsets.UTF_8));
            long took = System.nanoTime() - start;
            if (!done) {
                return new Captured(tool, took, tool + " gave no answer within " + seconds(took) + " (killed)"
                        + firstLine(text), text);
            }
            int exit = p.exitValue();
            String summary = summarize.apply(text);
            if (summary == null) {
                return new Captured(tool, took, tool + " failed (exit " + exit + ")" + firstLine(text), text);
            }
            return new Captured(tool, took, tool + " " + seconds(took) + ", " + summary, text);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static Captured python(ClosingChild c, long start, long deadlineNanos) throws IOException {
        Path file = pythonStacksFile(c.pid());
        if (file == null || !Files.exists(file)) {
            return none(start, "no faulthandler memfd armed by pid " + c.pid() + " (vigil_child runtime not started, "
                    + "or too old)");
        }
        long before = Files.size(file);
        if (!c.signal(SIGUSR2)) {
            return none(start, "SIGUSR2 to pid " + c.pid() + " failed: it is gone");
        }
        long lastSize = -1;
        long stableSince = 0;
        while (System.nanoTime() - deadlineNanos < 0) {
            long size = Files.size(file);
            if (size > before && size == lastSize) {
                if (System.nanoTime() - stableSince > TimeUnit.MILLISECONDS.toNanos(50)) {
                    break;
                }
            } else {
                lastSize = size;
                stableSince = System.nanoTime();
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        String all = Files.readString(file, StandardCharsets.UTF_8);
        String text = cut(all.length() > before ? all.substring((int) Math.min(before, all.length())) : "");
        long took = System.nanoTime() - start;
        if (text.isEmpty()) {
            return new Captured("faulthandler", took, "faulthandler wrote nothing within " + seconds(took)
                    + " (the interpreter holds no GIL-free point: stuck in C code?)", "");
        }
        return new Captured("faulthandler", took, "faulthandler " + seconds(took) + ", " + summarizePython(text), text);
    }

    /** What /proc/PID/fd/N reads for the Python runtime's stack-dump memfd (vigil_child.runtime.STACKS_MEMFD_NAME). */
    static final String PYTHON_STACKS_MEMFD = "/memfd:vigil-stacks (deleted)";

    /** The memfd the Python runtime armed faulthandler into, as its {@code /proc/PID/fd/N} link; null when none. */
    static Path pythonStacksFile(int pid) {
        Path fds = Path.of("/proc", Integer.toString(pid), "fd");
        try (java.util.stream.Stream<Path> links = Files.list(fds)) {
            return links.filter(l -> {
                try {
                    return Files.readSymbolicLink(l).toString().equals(PYTHON_STACKS_MEMFD);
                } catch (IOException | RuntimeException e) {
                    return false; // closed while we looked
                }
            }).findFirst().orElse(null);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** eu-stack ({@code TID n:} / {@code #0  0x... name}) or gdb ({@code Thread n} / {@code #0  0x... in name (...)}). */
    static String summarizeNative(String text) {
        int threads = 0;
        List<String> top = new ArrayList<>();
        boolean first = true;
        for (String line : text.split("\n")) {
            String l = line.trim();
            if (l.startsWith("TID ") || l.startsWith("Thread ")) {
                threads++;
                first = threads == 1;
            } else if (l.startsWith("#") && first && top.size() < TOP_FRAMES) {
                String[] w = l.split("\\s+");
                String name = null;
                for (int i = 1; i < w.length; i++) {
                    if (w[i].equals("in") && i + 1 < w.length) {
                        name = w[i + 1];
                        break;
                    }
                    if (!w[i].startsWith("0x") && name == null) {
                        name = w[i];
                        break;
                    }
                }
                if (name != null) {
                    top.add(name);
                }
            }
        }
        if (threads == 0 && top.isEmpty()) {
            return null;
        }
        return Math.max(threads, 1) + " thread(s), first: " + (top.isEmpty() ? "no frames" : String.join(" < ", top));
    }

    /** jcmd Thread.print: threads start with {@code "name"}; the thread shown is the first with a frame outside the JDK. */
    static String summarizeJava(String text) {
        int threads = 0;
        String chosen = null;
        List<String> chosenTop = null;
        String current = null;
        List<String> frames = new ArrayList<>();
        boolean userFrame = false;
        for (String line : (text + "\n\"").split("\n")) {
            if (line.startsWith("\"")) {
                if (current != null && userFrame && chosen == null) {
                    chosen = current;
                    chosenTop = List.copyOf(frames.subList(0, Math.min(TOP_FRAMES, frames.size())));
                }
                threads++;
                int end = line.indexOf('"', 1);
                current = end > 0 ? line.substring(1, end) : line;
                frames.clear();
                userFrame = false;
            } else if (line.trim().startsWith("at ")) {
                String f = line.trim().substring(3);
                int paren = f.indexOf('(');
                String m = paren > 0 ? f.substring(0, paren) : f;
                frames.add(m);
                if (!(m.startsWith("java.") || m.startsWith("jdk.") || m.startsWith("sun."))) {
                    userFrame = true;
                }
            }
        }
        threads--; // the sentinel
        if (threads <= 0) {
            return null;
        }
        return threads + " thread(s)" + (chosen == null ? "" : ", \"" + chosen + "\": " + String.join(" < ", chosenTop));
    }

    /** faulthandler: {@code Thread 0x... (most recent call first):} then {@code   File "x.py", line 3 in f}. */
    static String summarizePython(String text) {
        int threads = 0;
        List<String> top = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.trim();
            if (l.startsWith("Thread ") || l.startsWith("Current thread ")) {
                threads++;
            } else if (l.startsWith("File ") && threads == 1 && top.size() < TOP_FRAMES) {
                int in = l.lastIndexOf(" in ");
                int lineNo = l.indexOf(", line ");
                String file = l.substring(5, lineNo > 0 ? lineNo : l.length()).replace("\"", "");
                file = file.substring(file.lastIndexOf('/') + 1);
                top.add((in > 0 ? l.substring(in + 4) : "?") + "@" + file
                        + (lineNo > 0 && in > lineNo ? ":" + l.substring(lineNo + 7, in) : ""));
            }
        }
        return Math.max(threads, 1) + " thread(s), first: " + (top.isEmpty() ? "no frames" : String.join(" < ", top));
    }

    private static String cut(String text) {
        return text.length() <= MAX_CHARS ? text : text.substring(0, MAX_CHARS) + "\n[cut at " + MAX_CHARS + " chars]";
    }

    private static String firstLine(String text) {
        String t = text.strip();
        if (t.isEmpty()) {
            return "";
        }
        int nl = t.indexOf('\n');
        return ": " + (nl > 0 ? t.substring(0, nl) : t);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }
}
