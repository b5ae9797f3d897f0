package dev.vigil.pool;

import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.spawn.Redirect;

/**
 * A throwaway orchestrator process for the kill test: starts a pool (Java, C and plain children),
 * prints {@code PIDS <pid> ...} and waits to be killed. Not a pool child: the test starts it with
 * ProcessBuilder.
 */
public final class PoolHolderMain {
    private PoolHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        Orchestrator o = Orchestrator.builder().journalDir(Path.of(args[0])).closeSettings(CloseSettings.defaults()).open();
        Pool pool = Pool.builder(o, "held").childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(30))
                .group("java", 1, ChildSpec.java(DemoHandler.class.getName()))
                .group("chips", 2, ChildSpec.cDemo())
                .group("plain", 1, ChildSpec.exec("sleep", "600"))
                .start();
        System.out.println("PIDS " + pool.children().stream().map(c -> Integer.toString(c.pid()))
                .collect(Collectors.joining(" ")));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
