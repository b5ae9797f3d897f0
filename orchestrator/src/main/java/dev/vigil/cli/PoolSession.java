package dev.vigil.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.vigil.close.CloseFailedException;
import dev.vigil.close.decision.CloseReport;
import dev.vigil.mailbox.CommandResult;
import dev.vigil.mailbox.MailboxHandle;
import dev.vigil.mailbox.MailboxState;
import dev.vigil.mailbox.ProtocolMode;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.pool.PoolChild;
import dev.vigil.spawn.Redirect;

/**
 * {@code vigil session SPEC}: the spec's pools started once and driven by another program (the pytest
 * fixture of the Python package) over JSON lines: requests on stdin, one answer line each on stdout.
 * Children's output goes to {@code <journal>-children.log}, so stdout carries the protocol only.
 *
 * <p>First line out: {@code {"event":"ready","pools":[{"id":..,"children":[{"group","index","pid","kind"}]}]}},
 * or {@code {"event":"startFailed","error":..}} (exit 1). Requests ({@code op}):
 * <ul>
 * <li>{@code control} / {@code task} {pool, group, index, opcode, argument, timeoutMs}: {@code {"ok":true,"value","errorCode","errorText"}};</li>
 * <li>{@code send} {pool, group, index, opcode, argument}: places a control without waiting: {@code {"ok":true,"commandId"}};</li>
 * <li>{@code inside} {pool, group, index, timeoutMs}: waits until the child is inside its handler (a command
 *     pending and the heartbeat still for {@value #STILL_MILLIS} ms) — the moment of the lost-shutdown race;</li>
 * <li>{@code gate} {pool, group, index, value}: sets the demo/test GATE word;</li>
 * <li>{@code close}: closes every pool at once: {@code {"ok":true,"clean",reports:[{"pool","outcome","failures","report"}]}}
 *     (under escalation leak also {@code "kept":[{"pool","pid","command"}]} and {@code "endKeptWith"}: what the closes
 *     kept is left running, as {@code vigil run} leaves it), then the session ends (exit 0 clean, 1 not). As for
 *     {@code vigil run}, a child that exited during the session (before its close) makes it unclean: each pool's
 *     {@code exitedDuringRun} lists them (also in its {@code failures}); before, a child that crashed mid-session
 *     closed CLEAN, exit 0, and a test fixture passed unless it had sent that child a command afterwards.</li>
 * </ul>
 * A request that fails, or whose fields are wrong (each named, as a spec's are), answers
 * {@code {"ok":false,"error":..}}. End of input closes every pool as {@code close} does; so does a SIGINT, SIGTERM or SIGHUP (once the request being handled, if any, has answered), and the session then
 * exits 128 + the signal; a second one escalates every close at once. Before, a signal ended the session at
 * once: no close and no reap journaled, and the audit of that journal said CLEAN.
 */
public final class PoolSession implements Stoppable {
    /** How long the heartbeat must stand still for {@code inside}: the child loop beats every iteration. */
    static final long STILL_MILLIS = 250;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final RunSpec spec;
    private final PrintStream out;
    private final PrintStream log;
    private final Map<String, Pool> pools = new LinkedHashMap<>();
    /** Input lines, then {@link #END} at its end; {@link #STOP} when a signal asks the session to stop. */
    private final java.util.concurrent.BlockingQueue<Object> input = new java.util.concurrent.LinkedBlockingQueue<>();
    private static final Object END = new Object();
    private static final Object STOP = new Object();
    private final java.util.concurrent.atomic.AtomicInteger stops = new java.util.concurrent.atomic.AtomicInteger();
    private volatile int stopSignal;
    private volatile Orchestrator orchestrator;
    private final dev.vigil.close.CloseSettings settings;
    /** How often a close without a report is said to be still running. */
    private Duration stillRunningNote = Duration.ofMinutes(1);

    public PoolSession(RunSpec spec, PrintStream out, PrintStream log) {
        this.spec = spec;
        this.settings = PoolRunner.closeSettings(spec.close());
        this.out = out;
        this.log = log;
    }

    /** Runs the session over {@code in}; returns 0 when the final close was clean, 1 otherwise. */
    public int run(BufferedReader in) throws IOException {
        Path journal = Path.of(spec.journalDir()).toAbsolutePath().normalize();
        ProtocolMode mode = spec.protocol().equals("legacy") ? ProtocolMode.LEGACY : ProtocolMode.STICKY;
        Path childLog = childLog(journal);
        try (Orchestrator orchestrator = Orchestrator.builder().journalDir(journal).closeSettings(settings)
                .maxMailboxes(Math.max(256, spec.totalChildren() + 64)).open()) {
            this.orchestrator = orchestrator;
            if (stopSignal != 0) {
                orchestrator.stopStarts("stop requested");
            }
            try {
                for (RunSpec.PoolEntry entry : spec.pools()) {
                    Pool.Builder b = PoolRunner.poolBuilder(orchestrator, mode, entry).childOutput(Redirect.appendTo(childLog));
                    for (RunSpec.Group g : entry.groups()) {
                        b.group(g.name(), g.children(), PoolRunner.childSpec(g));
                    }
                    pools.put(entry.id(), b.start());
                }
            } catch (RuntimeException e) {
                answer(JSON.createObjectNode().put("event", "startFailed").put("error", String.valueOf(e.getMessage())));
                closeAll(orchestrator, journal);
                return stopSignal != 0 ? 128 + stopSignal : 1;
            }
            answer(ready(journal));
            readOnItsOwnThread(in);
            String line;
            while ((line = nextLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                ObjectNode reply;
                JsonNode request = null;
                try {
                    try (com.fasterxml.jackson.core.JsonParser p = JSON.getFactory().createParser(line)) {
                        request = JsonTree.read(p); // as a spec's: 1e300 quoted as written, a field written twice named
                    }
                    if ("close".equals(request.path("op").asText())) {
                        break;
                    }
                    reply = handle(request);
                } catch (IOException e) {
                    reply = JSON.createObjectNode().put("ok", false)
                            .put("error", "the request is not JSON: " + SpecReader.parserMessage(String.valueOf(e.getMessage())));
                } catch (RuntimeException e) {
                    reply = JSON.createObjectNode().put("ok", false).put("error", String.valueOf(e.getMessage()));
                }
                answer(reply);
            }
            ObjectNode closed = closeAll(orchestrator, journal);
            answer(closed);
            return stopSignal != 0 ? 128 + stopSignal : closed.path("clean").asBoolean() ? 0 : 1;
        }
    }

    @Override
    public int requestStop(int signal, String origin) {
        int n = stops.incrementAndGet();
        Orchestrator o = orchestrator;
        if (n == 1) {
            stopSignal = signal;
            input.add(STOP);
            if (o != null) {
                o.stopStarts(origin + " received");
            }
        } else if (o != null) {
            o.closeEngine().escalateAll(origin);
        }
        return n;
    }

    /** Reads {@code in} on a daemon thread, so that a stop request need not wait for the next input line. */
    private void readOnItsOwnThread(BufferedReader in) {
        Thread reader = new Thread(() -> {
            try {
                for (String line; (line = in.readLine()) != null; ) {
                    input.add(line);
                }
            } catch (IOException e) {
                // the end of the input, as far as the session is concerned
            }
            input.add(END);
        }, "vigil-session-input");
        reader.setDaemon(true);
        reader.start();
    }

    /** The next input line, or null at its end or when a stop was requested. */
    private String nextLine() {
        try {
            return input.take() instanceof String line ? line : null; // END or STOP: no more lines
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private ObjectNode ready(Path journal) {
        ObjectNode ready = JSON.createObjectNode().put("event", "ready").put("journal", journal.toString())
                .put("childLog", childLog(journal).toString());
        ArrayNode list = ready.putArray("pools");
        for (Pool p : pools.values()) {
            ObjectNode pool = list.addObject().put("id", p.poolId());
            ArrayNode children = pool.putArray("children");
            for (PoolChild c : p.children()) {
                children.addObject().put("group", c.group()).put("index", c.index()).put("pid", c.pid()).put("kind", c.kind());
            }
        }
        return ready;
    }

    /** Where the children's stdout and stderr go: beside the journal, {@code <journal>-children.log}. */
    static Path childLog(Path journal) {
        return dev.vigil.journal.JournalOwner.sibling(journal, "-children.log");
    }

    /** What a request may ask ({@code close} is taken by {@link #run} before {@link #handle}). */
    static final java.util.Set<String> OPS = java.util.Set.of("control", "task", "send", "inside", "gate", "close");

    /**
     * Answers one request. Its fields are checked as the spec's are (every mistake named at once, nothing
     * sent): before, a missing or mistyped opcode, index or timeout read as 0, and an argument beyond 64 bits was cut
     * to its low bits and sent.
     */
    private ObjectNode handle(JsonNode r) {
        if (!r.isObject()) {
            throw new IllegalArgumentException("a request is a JSON object such as {\"op\":\"control\",\"group\":\"chips\","
                    + "\"index\":0,\"opcode\":1,\"argument\":5}, not " + r.getNodeType().name().toLowerCase(java.util.Locale.ROOT));
        }
        List<SpecProblem> problems = new ArrayList<>();
        JsonFields f = JsonFields.object(r, "$", problems);
        String op = f.requiredOneOf("op", OPS);
        String poolId = f.string("pool", pools.keySet().iterator().next());
        String group = f.requiredString("group");
        int index = f.intAtLeast("index", 0, 0);
        boolean command = "control".equals(op) || "task".equals(op) || "send".equals(op);
        int opcode = command ? f.required("opcode") == null ? 0 : f.intAtLeast("opcode", Integer.MIN_VALUE, 0) : 0;
        long argument = command ? f.longAtLeast("argument", Long.MIN_VALUE, 0) : 0;
        boolean waits = "control".equals(op) || "task".equals(op) || "inside".equals(op);
        Duration timeout = Duration.ofMillis(waits ? f.millisAtLeast("timeoutMs", 1, 5_000) : 0);
        long gate = "gate".equals(op) ? f.longAtLeast("value", Long.MIN_VALUE, 1) : 0;
        f.rejectUnknown();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems.stream().map(SpecProblem::toString).toList()));
        }
        Pool pool = pools.get(poolId);
        if (pool == null) {
            throw new IllegalArgumentException("no such pool: pool=" + poolId + " pools=" + pools.keySet());
        }
        ObjectNode reply = JSON.createObjectNode().put("ok", true);
        switch (op) {
            case "control", "task" -> {
                CommandResult result = op.equals("control") ? pool.control(group, index, opcode, argument, timeout)
                        : pool.runTask(group, index, opcode, argument, timeout);
                reply.put("value", result.value()).put("errorCode", result.errorCode()).put("errorText", result.errorText());
            }
            case "send" -> reply.put("commandId", pool.sendControl(group, index, opcode, argument));
            // a plain executable has no mailbox: named as control's refusal names it (it was a NullPointerException's text)
            case "inside" -> awaitInside(pool.mailboxChild(group, index).mailbox(), timeout);
            case "gate" -> pool.mailboxChild(group, index).mailbox().setGate(gate);
            default -> throw new IllegalStateException("op " + op + " is answered by the session loop");
        }
        return reply;
    }

    private static void awaitInside(MailboxHandle mailbox, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long beat = mailbox.heartbeat();
        long stillSince = System.nanoTime();
        while (System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            long now = mailbox.heartbeat();
            int state = mailbox.state();
            boolean pending = state == MailboxState.CONTROL_REQUEST || state == MailboxState.TASK_READY;
            if (now != beat || !pending) {
                beat = now;
                stillSince = System.nanoTime();
            } else if (System.nanoTime() - stillSince >= STILL_MILLIS * 1_000_000) {
                return;
            }
        }
        throw new IllegalStateException("child not seen inside its handler within " + timeout.toMillis() + " ms (a command"
                + " pending and its heartbeat still for " + STILL_MILLIS + " ms; a handler that polls shutdown beats): " + mailbox);
    }

    /** How often a close that has not reported yet is said to be still running, on the log (tests shorten it). */
    void stillRunningNote(Duration every) {
        this.stillRunningNote = every;
    }

    /**
     * Closes every pool at once (a thread each, as {@code vigil run} does: the common pool would close them a few at a
     * time) and waits for each report as {@code vigil run} does ({@link CloseReportWait}: a line on the log each
     * {@link #stillRunningNote} while one runs). Under escalation leak the pools a close kept survivors of are left
     * running, as {@code vigil run} leaves them ({@link Orchestrator#leave}), listed on the log and in the answer's
     * {@code kept}; before, the orchestrator's close closed them again with term-then-kill.
     */
    private ObjectNode closeAll(Orchestrator orchestrator, Path journal) {
        List<Pool> closing = List.copyOf(pools.values());
        Map<String, List<String>> gone = new LinkedHashMap<>(); // read before the close collects them, as vigil run does
        for (Pool p : closing) {
            gone.put(p.poolId(), PoolRunner.childrenGone(p));
        }
        List<CompletableFuture<CloseReport>> closes = new ArrayList<>();
        for (Pool p : closing) {
            CompletableFuture<CloseReport> close = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    close.complete(p.closeWithReport());
                } catch (CloseFailedException e) {
                    close.complete(e.report());
                } catch (RuntimeException | Error e) {
                    close.completeExceptionally(e);
                }
            }, "vigil-session-close");
            t.setDaemon(true);
            t.start();
            closes.add(close);
        }
        ObjectNode reply = JSON.createObjectNode().put("ok", true);
        ArrayNode reports = reply.putArray("reports");
        boolean clean = true;
        for (int i = 0; i < closing.size(); i++) {
            CloseReport r;
            try {
                r = CloseReportWait.await(closing.get(i).poolId(), closes.get(i), settings, stillRunningNote, log,
                        "vigil session: ");
            } catch (java.util.concurrent.ExecutionException | InterruptedException e) {
                if (e instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                String why = "pool=" + closing.get(i).poolId() + " close did not finish: " + (e instanceof InterruptedException
                        ? "interrupted" : dev.vigil.journal.JournalException.plain(e.getCause()).replace('\n', ' '));
                log.println("vigil session: " + why);
                reports.addObject().put("pool", closing.get(i).poolId()).put("outcome", "NOT_FINISHED").put("summary", why)
                        .put("failures", why);
                clean = false;
                continue;
            }
            List<String> exited = gone.getOrDefault(r.poolId(), List.of());
            clean &= r.isClean() && exited.isEmpty();
            exited.forEach(line -> log.println("vigil session: " + line));
            log.println("vigil session: " + PoolRunner.summary(r));
            String failures = (r.isClean() ? "" : r.describeFailures())
                    + exited.stream().map(line -> "\n  " + line).collect(java.util.stream.Collectors.joining());
            ObjectNode entry = reports.addObject().put("pool", r.poolId()).put("outcome", r.outcome().name())
                    .put("summary", PoolRunner.summary(r)).put("failures", failures);
            ArrayNode exitedList = entry.putArray("exitedDuringRun");
            exited.forEach(exitedList::add);
            try {
                entry.set("report", JSON.readTree(r.toJson()));
            } catch (IOException e) {
                entry.put("report", r.toJson());
            }
        }
        pools.clear();
        if (settings.escalation() == dev.vigil.close.decision.EscalationPolicy.LEAK) {
            // leak means kept: no further close of what the closes kept; it outlives this session, listed with its reaper
            List<Orchestrator.KeptPool> kept = orchestrator.leave();
            PoolRunner.printKept(kept, journal, log);
            ArrayNode list = reply.putArray("kept");
            for (Orchestrator.KeptPool k : kept) {
                for (dev.vigil.contain.ContainedProcess p : k.processes()) {
                    list.addObject().put("pool", k.poolId()).put("pid", p.pid()).put("command", p.command());
                }
            }
            if (!kept.isEmpty()) {
                reply.put("endKeptWith", PoolRunner.reapCommand(journal));
            }
        }
        return reply.put("clean", clean);
    }

    private void answer(ObjectNode node) {
        out.println(node.toString());
        out.flush();
    }
}
