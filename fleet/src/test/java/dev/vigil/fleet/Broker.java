package dev.vigil.fleet;

import java.nio.file.Path;

/** A real single-node KRaft broker started through bin/vigil-kafka in a directory of its own. */
final class Broker implements AutoCloseable {
    final Path dir;
    private final Path logDir;
    private String bootstrap;

    private Broker(Path dir, Path logDir) {
        this.dir = dir;
        this.logDir = logDir;
    }

    static Broker start(Path dir, Path logDir) {
        Broker b = new Broker(dir, logDir);
        b.startAgain();
        return b;
    }

    String bootstrap() {
        return bootstrap;
    }

    void startAgain() {
        Cli.Result r = Cli.run(logDir, "kafka-start", 150, "vigil-kafka", "start", dir.toString());
        if (r.exit() != 0 || !r.out().startsWith("bootstrap=")) {
            throw new AssertionError("bin/vigil-kafka start failed: " + r);
        }
        String b = r.out().strip().substring("bootstrap=".length());
        if (bootstrap != null && !bootstrap.equals(b)) {
            throw new AssertionError("the broker came back on " + b + ", not " + bootstrap);
        }
        bootstrap = b;
    }

    void stop() {
        Cli.Result r = Cli.run(logDir, "kafka-stop", 60, "vigil-kafka", "stop", dir.toString());
        if (r.exit() != 0) {
            throw new AssertionError("bin/vigil-kafka stop failed: " + r);
        }
    }

    @Override
    public void close() {
        stop();
    }
}
