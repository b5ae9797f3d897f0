package dev.vigil.e2e;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.pool.ChildSpec;
import dev.vigil.pool.Orchestrator;
import dev.vigil.pool.Pool;
import dev.vigil.pool.PoolChild;
import dev.vigil.spawn.Redirect;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A throwaway orchestrator process for {@link RingFlowControlStressTest}: one pool of C and Java demo children,
 * back-to-back echo controls on every child at once for a given time, then a journaled close. Prints
 * {@code READY <pid>} once the children are up and {@code CONTROLS <n>} at the end. Not a pool child: the test
 * starts it with ProcessBuilder so that it can SIGSTOP it. Ring settings come from the vigil.ring.* properties.
 * Arguments: journal dir, controls duration in ms, C children, Java children.
 */
public final class RingStressMain {
    private RingStressMain() {
    }

    public static void main(String[] args) throws Exception {
        Path journal = Path.of(args[0]);
        long millis = Long.parseLong(args[1]);
        int cChildren = Integer.parseInt(args[2]);
        int javaChildren = Integer.parseInt(args[3]);
        try (Orchestrator o = Orchestrator.builder().journalDir(journal).closeSettings(CloseSettings.defaults()).open()) {
            Pool pool = Pool.builder(o, "stress").childOutput(Redirect.DISCARD).startTimeout(Duration.ofSeconds(60))
                    .group("c", cChildren, ChildSpec.cDemo())
                    .group("java", javaChildren, ChildSpec.java(DemoHandler.class.getName()))
                    .start();
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            long end = System.nanoTime() + millis * 1_000_000L;
            AtomicLong controls = new AtomicLong();
            List<Thread> drivers = new ArrayList<>();
            for (PoolChild child : pool.children()) {
                Thread driver = new Thread(() -> {
                    for (long i = 0; System.nanoTime() - end < 0; i++) {
                        if (pool.control(child.group(), child.index(), DemoHandler.OP_ECHO, i, Duration.ofSeconds(30)).value() != i) {
                            throw new IllegalStateException("echo mismatch: " + child);
                        }
                        controls.incrementAndGet();
                    }
                }, "driver-" + child.group() + "-" + child.index());
                drivers.add(driver);
                driver.start();
            }
            for (Thread driver : drivers) {
                driver.join();
            }
            pool.close();
            System.out.println("CONTROLS " + controls.get());
        }
    }
}
