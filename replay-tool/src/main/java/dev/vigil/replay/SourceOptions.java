package dev.vigil.replay;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.IntFunction;
import java.util.function.Predicate;

import dev.vigil.replay.source.EventSource;
import dev.vigil.replay.source.FleetSource;
import dev.vigil.replay.source.FleetSourceProvider;
import dev.vigil.replay.source.JournalDirectorySource;

import picocli.CommandLine.Model.CommandSpec;

/**
 * The event source of a command: a journal DIR, or {@code --kafka HOST:PORT --topic T [--host H]}
 * (the journals the fleet shipped there, see docs/FLEET.md). With {@code --host} the command reads
 * that host's journal and prints exactly what it prints for the directory; without, it runs once per
 * host, each run headed by a {@code host H} line (JSON lines carry {@code "host"} instead).
 */
public final class SourceOptions {
    String kafka;
    String topic;
    String host;

    /** Adds {@code --kafka}, {@code --topic} and {@code --host} to a command, bound to a new instance, and returns it. */
    static SourceOptions addTo(CommandSpec spec) {
        SourceOptions o = new SourceOptions();
        spec.addOption(CommandModel.option(String.class, "HOST:PORT", () -> o.kafka, v -> o.kafka = v, "--kafka")
                .description("read the journals shipped to this Kafka cluster instead of DIR").build());
        spec.addOption(CommandModel.option(String.class, "T", () -> o.topic, v -> o.topic = v, "--topic")
                .description("with --kafka: the topic").build());
        spec.addOption(CommandModel.option(String.class, "H", () -> o.host, v -> o.host = v, "--host")
                .description("with --kafka: only this host's journal (default: every host)").build());
        return o;
    }

    /** A command's work over one journal. */
    @FunctionalInterface
    public interface Body {
        int run(EventSource source, PrintStream out);
    }

    /** True when the events come from Kafka. */
    public boolean fromKafka() {
        return kafka != null;
    }

    /** Runs {@code body} over DIR or over the topic's hosts; returns the highest exit code. */
    public int run(Path dir, boolean json, PrintStream out, Body body) {
        return run(dir, json, out, body, null);
    }

    /**
     * Like {@link #run(Path, boolean, PrintStream, Body)}; over several hosts (text output) the
     * {@code fleetLine} of the highest exit code ends the output.
     */
    public int run(Path dir, boolean json, PrintStream out, Body body, IntFunction<String> fleetLine) {
        if (readsDirectory(dir)) {
            return body.run(new JournalDirectorySource(dir), out);
        }
        try (FleetSource fleet = provider().open(kafka, topic)) {
            if (host != null) {
                return body.run(fleet.host(host), out);
            }
            List<String> hosts = fleet.hosts();
            int worst = 0;
            for (String h : hosts) {
                if (json) {
                    PrintStream labelled = hostLabelled(out, h);
                    worst = Math.max(worst, body.run(fleet.host(h), labelled));
                    labelled.flush();
                } else {
                    out.println("host " + h);
                    worst = Math.max(worst, body.run(fleet.host(h), out));
                    out.println();
                }
            }
            if (!json) {
                out.println("fleet: " + hosts.size() + " hosts" + (hosts.isEmpty() ? " (" + fleet.describe()
                        + " holds no Vigil events)" : "") + (fleetLine == null ? "" : ", " + fleetLine.apply(worst)));
            }
            return worst;
        }
    }

    /**
     * Runs {@code body} once: over DIR, over {@code --host}'s journal, or over the one host of the
     * topic whose journal {@code holds} (a close id names one orchestrator's close, so one host).
     * {@code what} names what was looked for, for the error when no host holds it.
     */
    public int runOnHolder(Path dir, PrintStream out, Predicate<EventSource> holds, String what, Body body) {
        if (readsDirectory(dir)) {
            return body.run(new JournalDirectorySource(dir), out);
        }
        try (FleetSource fleet = provider().open(kafka, topic)) {
            if (host != null) {
                return body.run(fleet.host(host), out);
            }
            for (String h : fleet.hosts()) {
                EventSource s = fleet.host(h);
                if (holds.test(s)) {
                    return body.run(s, out);
                }
            }
            throw new ReplayInputException(what + " is in no host's journal in " + fleet.describe() + " (hosts: "
                    + (fleet.hosts().isEmpty() ? "none" : String.join(", ", fleet.hosts())) + ")");
        }
    }

    /** Checks the options against DIR: true when DIR is the source, false for --kafka. */
    private boolean readsDirectory(Path dir) {
        if (kafka == null) {
            if (topic != null || host != null) {
                throw new ReplayInputException("--topic and --host go with --kafka HOST:PORT");
            }
            if (dir == null) {
                throw new ReplayInputException("a journal DIR or --kafka HOST:PORT --topic T is required");
            }
            return true;
        }
        if (dir != null) {
            throw new ReplayInputException("give a journal DIR or --kafka, not both (DIR=" + dir + ")");
        }
        if (topic == null) {
            throw new ReplayInputException("--kafka " + kafka + " needs --topic T");
        }
        return false;
    }

    private static FleetSourceProvider provider() {
        return ServiceLoader.load(FleetSourceProvider.class).findFirst().orElseThrow(() -> new ReplayInputException(
                "--kafka needs the fleet module on the class path (bin/vigil-replay adds it once "
                        + "fleet/target/vigil-fleet.jar is built: mvn -B -DskipTests package)"));
    }

    /** JSON lines with {@code "host":"H"} as their first field. */
    static PrintStream hostLabelled(PrintStream out, String host) {
        String label = "{\"host\":" + com.fasterxml.jackson.databind.node.TextNode.valueOf(host) + ",";
        OutputStream lines = new OutputStream() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public void write(int b) {
                if (b != '\n') {
                    line.write(b);
                    return;
                }
                String s = line.toString(StandardCharsets.UTF_8);
                line.reset();
                out.println(s.startsWith("{") && s.length() > 1 ? (s.equals("{}") ? label.substring(0, label.length() - 1) + "}" : label + s.substring(1)) : s);
            }

            @Override
            public void flush() {
                out.flush();
            }
        };
        return new PrintStream(lines, true, StandardCharsets.UTF_8);
    }
}
