package dev.vigil.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import dev.vigil.cli.RunSpec.Close;
import dev.vigil.cli.RunSpec.Group;
import dev.vigil.cli.RunSpec.Workload;
import dev.vigil.child.ChildMain;
import dev.vigil.child.demo.DemoBehaviour;
import dev.vigil.close.CloseSettings;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.ExitPolicy;
import dev.vigil.pool.Pool;

/**
 * Reads a pool-runner spec (JSON, or YAML for {@code .yaml}/{@code .yml}) and validates it up front:
 * every mistake is collected with its path ({@code pools[0].groups[1].children: must be >= 1}) and
 * reported at once, before anything is started.
 */
public final class SpecReader {
    /** Child kinds a group may have. */
    public static final Set<String> KINDS = Set.of("java", "python", "c", "mailbox-exec", "exec");
    public static final Set<String> PROTOCOLS = Set.of("sticky", "legacy");
    public static final Set<String> ESCALATIONS = Set.of("leak", "term-then-kill");
    public static final Set<String> EXIT_POLICIES = Set.of("keep", "fail-pool", "restart");
    public static final String DEFAULT_JOURNAL_DIR = "./vigil-journal";

    private final List<SpecProblem> problems = new ArrayList<>();
    private Path baseDir;
    /** The child runtimes a spec's children would start with, to measure their exec size; made at first use. */
    private dev.vigil.pool.ChildRuntimes runtimes;

    private SpecReader() {
    }

    /**
     * Parses and validates {@code file}; throws {@link SpecInvalidException} listing every mistake. A
     * relative {@code journalDir} (the default too) is resolved against the spec file's folder.
     */
    public static RunSpec read(Path file) {
        if (Files.isDirectory(file)) {
            throw new SpecInvalidException(file.toString(), List.of(new SpecProblem("$",
                    "is a directory, not a spec file (give a .json, .yaml or .yml file)")));
        }
        if (!Files.exists(file)) {
            throw new SpecInvalidException(file.toString(), List.of(new SpecProblem("$", "no such file")));
        }
        if (!Files.isRegularFile(file)) {
            throw new SpecInvalidException(file.toString(), List.of(new SpecProblem("$", "not a regular file")));
        }
        String name = file.getFileName().toString();
        boolean yaml = name.endsWith(".yaml") || name.endsWith(".yml");
        JsonNode root;
        try (JsonParser p = (yaml ? new YAMLFactory() : new JsonFactory()).createParser(file.toFile())) {
            root = JsonTree.read(p); // a field written twice is a mistake to name, not a silent "the last one wins"
        } catch (JsonTree.TagRefused e) {
            throw new SpecInvalidException(file.toString(), List.of(new SpecProblem(e.path, e.getOriginalMessage())));
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? "$"
                    : "line " + e.getLocation().getLineNr() + " column " + e.getLocation().getColumnNr();
            throw new SpecInvalidException(file.toString(), List.of(new SpecProblem(where,
                    "not valid " + (yaml ? "YAML" : "JSON") + ": " + parserMessage(e.getOriginalMessage()))));
        } catch (IOException e) {
            throw new SpecInvalidException(file.toString(), List.of(new SpecProblem("$", "unreadable: " + e.getMessage())));
        }
        return validate(file.toString(), root, file.toAbsolutePath().getParent());
    }

    /**
     * A parser's message as one line in the spec's terms: Jackson's "[Source: ...; line: L, column: C]" becomes
     * "line L, column C"; SnakeYAML's "in 'reader', line L" lines and its caret drawing go (the problem's own
     * place already says where), and what is left is joined with "; ". Jackson's nesting limit, which names its own
     * method, becomes "nested N levels deep".
     */
    static String parserMessage(String message) {
        String located = message.replaceAll("\\[Source: .*?; line: (\\d+), column: (\\d+)\\]", "line $1, column $2")
                // its nesting limit names its own method ("(1000, from `StreamReadConstraints.getMaxNestingDepth()`)")
                .replaceAll("(?s)^Document nesting depth \\((\\d+)\\) exceeds the maximum allowed \\((\\d+),.*",
                        "nested $1 levels deep, more than the $2 a spec may be");
        return java.util.Arrays.stream(located.split("\\R"))
                .map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("in 'reader'") && !l.chars().allMatch(ch -> ch == '^'))
                .collect(java.util.stream.Collectors.joining("; "));
    }

    /** Validates an already parsed spec tree; a relative journalDir stays relative to the working directory. */
    public static RunSpec validate(String source, JsonNode root) {
        return validate(source, root, null);
    }

    /** Validates a parsed spec tree, resolving a relative journalDir against {@code baseDir} (when not null). */
    static RunSpec validate(String source, JsonNode root, Path baseDir) {
        SpecReader r = new SpecReader();
        r.baseDir = baseDir;
        RunSpec spec = r.runSpec(root == null ? com.fasterxml.jackson.databind.node.MissingNode.getInstance() : root);
        if (!r.problems.isEmpty()) {
            throw new SpecInvalidException(source, r.problems);
        }
        return spec;
    }

    private RunSpec runSpec(JsonNode root) {
        JsonFields o = object(root, "$");
        if (o == null) {
            return null;
        }
        String journalDir = o.string("journalDir", DEFAULT_JOURNAL_DIR);
        String unnameable = journalDir == null ? null : whyNotAFileName(journalDir);
        if (unnameable != null) {
            problem(o.path("journalDir"), unnameable);
            journalDir = null;
        }
        if (journalDir != null && baseDir != null) {
            journalDir = baseDir.resolve(journalDir).normalize().toString();
        }
        String journalProblem = journalDir == null ? null : whyNotJournalDir(Path.of(journalDir));
        if (journalProblem != null) {
            problem(o.path("journalDir"), journalProblem);
        }
        String protocol = o.oneOf("protocol", PROTOCOLS, "sticky");
        int cycles = o.intAtLeast("cycles", 1, 1);
        Close close = close(o.node("close"), o.path("close"));
        RunSpec.ChildLogs childLogs = childLogs(o.node("childLogs"), o.path("childLogs"));
        List<RunSpec.PoolEntry> pools = new ArrayList<>();
        JsonNode poolsNode = o.required("pools");
        if (poolsNode != null) {
            if (!poolsNode.isArray()) {
                problem(o.path("pools"), "must be an array of pools");
            } else if (poolsNode.isEmpty()) {
                problem(o.path("pools"), "must hold at least one pool");
            } else {
                Map<String, String> ids = new HashMap<>();
                for (int i = 0; i < poolsNode.size(); i++) {
                    RunSpec.PoolEntry p = pool(poolsNode.get(i), o.path("pools") + "[" + i + "]", i);
                    String clash = p == null || p.id() == null ? null : dev.vigil.spawn.ChildLog.sameFiles(ids, p.id(), "pool id");
                    if (clash != null) {
                        problem(o.path("pools") + "[" + i + "].id", clash);
                    }
                    pools.add(p);
                }
            }
        }
        checkRoom(pools, o.path("pools"));
        o.rejectUnknown();
        return new RunSpec(journalDir, protocol, cycles, close, pools, childLogs);
    }

    /** {@code childLogs: {maxBytes, keep}}: the cap of one child log file and the rotated files kept. */
    private RunSpec.ChildLogs childLogs(JsonNode node, String path) {
        RunSpec.ChildLogs defaults = RunSpec.ChildLogs.DEFAULTS;
        JsonFields o = present(node, path);
        if (o == null) {
            return defaults;
        }
        long maxBytes = o.longAtLeast("maxBytes", 1, defaults.maxBytes());
        if (maxBytes > dev.vigil.spawn.ChildLog.MAX_MAX_BYTES) {
            problem(o.path("maxBytes"), "must be <= " + dev.vigil.spawn.ChildLog.MAX_MAX_BYTES);
            maxBytes = defaults.maxBytes();
        }
        int keep = o.intAtLeast("keep", 0, defaults.keep());
        if (keep > dev.vigil.spawn.ChildLog.MAX_KEEP) {
            problem(o.path("keep"), "must be <= " + dev.vigil.spawn.ChildLog.MAX_KEEP);
            keep = defaults.keep();
        }
        o.rejectUnknown();
        return new RunSpec.ChildLogs(maxBytes, keep);
    }

    /**
     * Null when this JVM can name a file {@code name}; else why not. The JVM writes file names in its locale's
     * charset ({@code sun.jnu.encoding}, from LC_ALL / LC_CTYPE / LANG, fixed at start): under {@code LC_ALL=C} it
     * is ASCII, and a pool id {@code "räck"} failed its pool's start ({@code Malformed input or input contains
     * unmappable characters: r?ck}, exit 1; a journalDir so named failed with that line and no field).
     */
    static String whyNotAFileName(String name) {
        java.nio.charset.Charset names;
        try {
            names = java.nio.charset.Charset.forName(System.getProperty("sun.jnu.encoding", "UTF-8"));
        } catch (IllegalArgumentException unknown) {
            return null;
        }
        if (names.newEncoder().canEncode(name)) {
            return null;
        }
        StringBuilder shown = new StringBuilder();
        name.codePoints().forEach(c -> shown.append(c >= 0x20 && c < 0x7f ? Character.toString(c) : String.format(java.util.Locale.ROOT, "\\u%04x", c)));
        return "'" + shown + "' cannot name a file under this locale: this JVM writes file names in " + names.name()
                + " (from LC_ALL, LC_CTYPE, LANG); run with a UTF-8 locale, e.g. LC_ALL=C.UTF-8";
    }

    /** Null when {@code dir} is a directory or can be created; else why not. */
    static String whyNotJournalDir(Path dir) {
        if (Files.exists(dir)) {
            if (!Files.isDirectory(dir)) {
                return "'" + dir + "' is a file, not a directory";
            }
            return Files.isWritable(dir) ? null : "'" + dir + "' is not writable";
        }
        Path existing = dir.toAbsolutePath().getParent();
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return null;
        }
        if (!Files.isDirectory(existing)) {
            return "'" + dir + "' cannot be created: '" + existing + "' is a file";
        }
        return Files.isWritable(existing) ? null : "'" + dir + "' cannot be created: '" + existing + "' is not writable";
    }

    /** Every pool starts at once each cycle: all their children must fit in what the system has room for. */
    private void checkRoom(List<RunSpec.PoolEntry> pools, String path) {
        long nativeChildren = 0;
        long javaChildren = 0;
        String largest = null;
        long largestCount = 0;
        for (int i = 0; i < pools.size(); i++) {
            RunSpec.PoolEntry p = pools.get(i);
            if (p == null) {
                continue;
            }
            for (int j = 0; j < p.groups().size(); j++) {
                Group g = p.groups().get(j);
                if (g == null || g.children() <= 0) {
                    continue;
                }
                if ("java".equals(g.kind())) {
                    javaChildren += g.children();
                } else {
                    nativeChildren += g.children();
                }
                if (g.children() > largestCount) {
                    largestCount = g.children();
                    largest = path + "[" + i + "].groups[" + j + "].children";
                }
            }
        }
        String why = largest == null ? null : ProcessRoom.current().whyNotRoomFor(nativeChildren, javaChildren);
        if (why != null) {
            problem(largest, largestCount + " is too many: " + why);
        }
    }

    private Close close(JsonNode node, String path) {
        Close defaults = new Close(1000, 0, 0, "term-then-kill", 500, 4);
        JsonFields o = present(node, path);
        if (o == null) {
            return defaults;
        }
        long windowMs = o.millisAtLeast("windowMs", 1, defaults.windowMs());
        long hardCapMs = o.millisAtLeast("hardCapMs", 0, defaults.hardCapMs());
        long fixedBudgetMs = o.millisAtLeast("fixedBudgetMs", 0, defaults.fixedBudgetMs());
        String escalation = o.oneOf("escalation", ESCALATIONS, defaults.escalation());
        long graceMs = o.millisAtLeast("graceMs", 0, defaults.graceMs());
        int parallelCloses = o.intAtLeast("parallelCloses", 1, defaults.parallelCloses());
        if (parallelCloses > CloseSettings.MAX_PARALLEL_CLOSES) {
            problem(o.path("parallelCloses"), "must be <= " + CloseSettings.MAX_PARALLEL_CLOSES);
            parallelCloses = defaults.parallelCloses();
        }
        Close c = new Close(windowMs, hardCapMs, fixedBudgetMs, escalation, graceMs, parallelCloses);
        o.rejectUnknown();
        return c;
    }

    private RunSpec.PoolEntry pool(JsonNode node, String path, int position) {
        JsonFields o = object(node, path);
        if (o == null) {
            return null;
        }
        String id = o.fileNamePart("id", "pool-" + (position + 1));
        String badId = id == null ? null : Pool.whyNotPoolId(id);
        if (badId != null) { // before: accepted, and the run's start of that pool failed (exit 1, a tab in the line)
            problem(o.path("id"), "'" + dev.vigil.spawn.ChildLog.escapeControls(id) + "' " + badId);
        }
        List<Group> groups = new ArrayList<>();
        JsonNode groupsNode = o.required("groups");
        if (groupsNode != null) {
            if (!groupsNode.isArray() || groupsNode.isEmpty()) {
                problem(o.path("groups"), "must be a non-empty array of groups");
            } else {
                Map<String, String> names = new HashMap<>();
                for (int i = 0; i < groupsNode.size(); i++) {
                    int before = problems.size();
                    Group g = group(groupsNode.get(i), o.path("groups") + "[" + i + "]");
                    if (g != null && problems.size() == before) {
                        checkExecSize(g, o.path("groups") + "[" + i + "]", id);
                    }
                    String clash = g == null || g.name() == null ? null : dev.vigil.spawn.ChildLog.sameFiles(names, g.name(), "group name");
                    if (clash != null) {
                        problem(o.path("groups") + "[" + i + "].name", clash);
                    }
                    groups.add(g);
                }
            }
        }
        Workload workload = new Workload(0, 5000, false);
        JsonNode w = o.node("workload");
        if (w != null) {
            JsonFields wo = object(w, o.path("workload"));
            if (wo != null) {
                workload = new Workload(wo.intAtLeast("controls", 0, 0), wo.millisAtLeast("controlTimeoutMs", 1, 5000),
                        wo.bool("inFlightAtClose", false));
                wo.rejectUnknown();
            }
        }
        ExitPolicy onChildExit = onChildExit(o.node("onChildExit"), o.path("onChildExit"));
        RunSpec.Start start = start(o.node("start"), o.path("start"), groups);
        o.rejectUnknown();
        return new RunSpec.PoolEntry(id, groups, workload, onChildExit, start);
    }

    /**
     * A pool's {@code start: {timeoutMs, bootingAtOnce}}. Each is refused where nothing would read it: a timeout in a
     * pool of plain executables only (nothing waits for their readiness), a bound on booting in a pool without java or
     * python children (the only ones it counts).
     */
    private RunSpec.Start start(JsonNode node, String path, List<Group> groups) {
        RunSpec.Start defaults = RunSpec.Start.DEFAULTS;
        JsonFields o = present(node, path);
        if (o == null) {
            return defaults;
        }
        long timeoutMs = o.millisAtLeast("timeoutMs", 1, defaults.timeoutMs());
        int bootingAtOnce = o.intAtLeast("bootingAtOnce", 0, defaults.bootingAtOnce());
        o.rejectUnknown();
        List<String> kinds = groups.stream().map(g -> g == null ? null : g.kind()).toList();
        if (!kinds.isEmpty() && !kinds.contains(null)) {
            if (node.has("timeoutMs") && kinds.stream().allMatch("exec"::equals)) {
                problem(o.path("timeoutMs"), "not used: every group of this pool is kind exec, whose readiness nothing waits for");
            }
            if (node.has("bootingAtOnce") && !kinds.contains("java") && !kinds.contains("python")) {
                problem(o.path("bootingAtOnce"), "not used: it bounds java and python children, and this pool has none");
            }
        }
        return new RunSpec.Start(timeoutMs, bootingAtOnce);
    }

    /** A pool's {@code onChildExit}: the policy, and for {@code restart} its intensity limit and backoff. */
    private ExitPolicy onChildExit(JsonNode node, String path) {
        JsonFields o = present(node, path);
        if (o == null) {
            return ExitPolicy.keep();
        }
        String label = o.oneOf("policy", EXIT_POLICIES, ExitPolicy.Kind.KEEP.label());
        ExitPolicy.Kind kind = ExitPolicy.Kind.ofLabel(label);
        boolean restart = kind == ExitPolicy.Kind.RESTART;
        int maxRestarts = o.intAtLeast("maxRestarts", 0, ExitPolicy.DEFAULT_MAX_RESTARTS);
        long periodMs = o.millisAtLeast("periodMs", 1, ExitPolicy.DEFAULT_PERIOD.toMillis());
        long backoffMs = o.millisAtLeast("backoffMs", 0, ExitPolicy.DEFAULT_BACKOFF.toMillis());
        long maxBackoffMs = o.millisAtLeast("maxBackoffMs", 0, Math.max(backoffMs, ExitPolicy.DEFAULT_MAX_BACKOFF.toMillis()));
        if (!restart) {
            for (String f : List.of("maxRestarts", "periodMs", "backoffMs", "maxBackoffMs")) {
                if (node.has(f)) {
                    problem(o.path(f), "only for policy restart (policy is " + label + ")");
                }
            }
        } else if (node.has("maxBackoffMs") && maxBackoffMs < backoffMs) {
            problem(o.path("maxBackoffMs"), "must be >= backoffMs (" + backoffMs + ")");
            maxBackoffMs = backoffMs;
        }
        o.rejectUnknown();
        return switch (kind) {
            case FAIL_POOL -> ExitPolicy.failPool();
            case RESTART -> ExitPolicy.restart(maxRestarts, java.time.Duration.ofMillis(periodMs),
                    java.time.Duration.ofMillis(backoffMs), java.time.Duration.ofMillis(maxBackoffMs));
            default -> ExitPolicy.keep();
        };
    }

    private Group group(JsonNode node, String path) {
        JsonFields o = object(node, path);
        if (o == null) {
            return null;
        }
        String name = o.required("name") == null ? null : o.fileNamePart("name", null);
        String kind = o.requiredOneOf("kind", KINDS);
        int children = o.requiredIntAtLeast("children", 1);
        List<String> command = o.stringList("command");
        String handler = o.string("handler", null);
        Map<String, String> env = o.stringMap("env");
        String stopSignal = o.stringOrInteger("stopSignal", "TERM");
        List<String> classPath = fromSpecFolder(o.stringList("classPath"), false);
        command = fromSpecFolder(command, true);
        List<String> jvmOptions = o.stringList("jvmOptions");
        if (kind != null) {
            boolean userCode = kind.equals("java") || kind.equals("python");
            if (classPath != null && !userCode) {
                problem(o.path("classPath"), "only for kind java or python (where the handler lives)");
            }
            if (jvmOptions != null && !kind.equals("java")) {
                problem(o.path("jvmOptions"), "only for kind java");
            }
            if (handler != null && !userCode) {
                problem(o.path("handler"), "only for kind java or python");
            }
            if (classPath != null) {
                for (int i = 0; i < classPath.size(); i++) {
                    if (!Files.exists(Path.of(classPath.get(i)))) {
                        problem(o.path("classPath") + "[" + i + "]", "no such file or directory '" + classPath.get(i) + "'");
                    }
                }
            }
            if (handler != null && kind.equals("java")) {
                String why = whyNotHandler(handler, classPath == null ? List.of() : classPath);
                if (why != null) {
                    problem(o.path("handler"), why);
                }
            }
            boolean needsCommand = kind.equals("mailbox-exec") || kind.equals("exec");
            if (needsCommand && (command == null || command.isEmpty())) {
                problem(o.path("command"), "required for kind " + kind);
            }
            if (userCode && command != null && !command.isEmpty()) {
                problem(o.path("command"), "not used for kind " + kind + " (set handler to a "
                        + (kind.equals("java") ? "ChildHandler class" : "module:Class") + ")");
            }
            if (command != null && !command.isEmpty() && !userCode) {
                String missing = CommandLookup.whyNotExecutable(command.get(0));
                if (missing != null) {
                    problem(o.path("command") + "[0]", missing);
                }
            }
        }
        for (Map.Entry<String, String> e : env.entrySet()) {
            String why = ChildSpec.whyNotEnvironmentVariable(e.getKey(), e.getValue());
            why = why != null || !e.getKey().startsWith("VIGIL_DEMO_") ? why
                    : DemoBehaviour.whyNotSetting(e.getKey(), e.getValue());
            if (why != null) {
                problem(o.path("env") + "." + dev.vigil.journal.JournalException.printable(e.getKey()), why);
            }
        }
        for (String field : new String[] {"command", "classPath", "jvmOptions"}) {
            List<String> strings = field.equals("command") ? command : field.equals("classPath") ? classPath : jvmOptions;
            for (int i = 0; strings != null && i < strings.size(); i++) {
                String why = ChildSpec.whyNotExecString(strings.get(i));
                if (why != null) {
                    problem(o.path(field) + "[" + i + "]", why);
                }
            }
        }
        int signal = stopSignal == null ? -1 : SignalNames.number(stopSignal);
        String badSignal = signal < 0 ? null : ChildSpec.whyNotStopSignal(signal);
        if (stopSignal != null && signal < 0) {
            problem(o.path("stopSignal"), "unknown signal '" + JsonFields.shortened(stopSignal) + "' (use a name like TERM or a number)");
        } else if (badSignal != null) {
            problem(o.path("stopSignal"), "'" + stopSignal + "' " + badSignal);
        }
        o.rejectUnknown();
        return new Group(name, kind, command == null ? List.of() : command, children, handler, env, stopSignal,
                classPath == null ? List.of() : classPath, jvmOptions == null ? List.of() : jvmOptions);
    }

    /**
     * A child of {@code g} must fit in exec whole (ChildSpec#whyNotExecSize, by the kernel's rules): named at the field
     * that weighs most of the group's command, env, classPath and jvmOptions (the group itself when it has none), with
     * the pool and group and every size. Before, such a spec passed this check and failed its pool's start (E2BIG).
     */
    private void checkExecSize(Group g, String path, String poolId) {
        if (runtimes == null) {
            try {
                runtimes = dev.vigil.pool.ChildRuntimes.locate(dev.vigil.spawn.SpawnerOptions.defaults().nativeDir());
            } catch (RuntimeException cannot) {
                return; // no runtimes to measure with: the start says what is missing
            }
        }
        String why;
        try {
            why = PoolRunner.childSpec(g).whyNotExecSize(runtimes, System.getenv());
        } catch (RuntimeException e) {
            return; // refused as it is built: named by the checks above
        }
        if (why == null) {
            return;
        }
        Map<String, Long> weights = new java.util.LinkedHashMap<>();
        weights.put("command", dev.vigil.spawn.ExecLimits.bytes(g.command()));
        weights.put("env", dev.vigil.spawn.ExecLimits.bytes(g.env()));
        weights.put("classPath", dev.vigil.spawn.ExecLimits.bytes(g.classPath()));
        weights.put("jvmOptions", dev.vigil.spawn.ExecLimits.bytes(g.jvmOptions()));
        Map.Entry<String, Long> most = java.util.Collections.max(weights.entrySet(), Map.Entry.comparingByValue());
        problem(most.getValue() > 0 ? path + "." + most.getKey() : path, "pool " + poolId + " group " + g.name() + ": " + why);
    }

    /**
     * The entries of {@code paths} (every one, or only the first: a command's program, when it names a path, not a
     * name looked up on PATH) resolved against the spec file's folder when relative, as journalDir is: a spec names
     * the files beside it whatever the working directory of the run.
     */
    private List<String> fromSpecFolder(List<String> paths, boolean programOnly) {
        if (paths == null || baseDir == null) {
            return paths;
        }
        List<String> resolved = new java.util.ArrayList<>(paths);
        for (int i = 0; i < (programOnly ? Math.min(1, paths.size()) : paths.size()); i++) {
            String p = paths.get(i);
            boolean relativePath = !p.isEmpty() && !p.startsWith("/") && (!programOnly || p.contains("/"));
            if (relativePath && ChildSpec.whyNotExecString(p) == null) {
                resolved.set(i, baseDir.resolve(p).normalize().toString());
            }
        }
        return resolved;
    }

    /**
     * Null when {@code className} is a ChildHandler the Java child runtime can create from the
     * orchestrator's classes and {@code classPath}; else why not. Checked before anything is spawned.
     */
    static String whyNotHandler(String className, List<String> classPath) {
        List<java.net.URL> urls = new ArrayList<>();
        for (String entry : classPath) {
            if (Files.exists(Path.of(entry))) {
                try {
                    urls.add(Path.of(entry).toUri().toURL());
                } catch (java.net.MalformedURLException e) {
                    return "class path entry '" + entry + "' is not usable: " + e.getMessage();
                }
            }
        }
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(urls.toArray(java.net.URL[]::new),
                SpecReader.class.getClassLoader())) {
            ChildMain.handlerType(className, loader);
            return null;
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            return "class '" + className + "' not found on the child class path";
        } catch (IllegalArgumentException | LinkageError e) {
            return "class '" + className + "' cannot be a handler: " + e.getMessage();
        } catch (IOException e) {
            return null; // closing the loader failed: the class was found
        }
    }

    private void problem(String path, String message) {
        problems.add(new SpecProblem(path, message));
    }

    private JsonFields object(JsonNode node, String path) {
        return JsonFields.object(node, path, problems);
    }

    /** {@code node} as an object when it is there (see {@link #object}); null, and no problem, when it is absent. */
    private JsonFields present(JsonNode node, String path) {
        return node == null ? null : object(node, path);
    }
}
