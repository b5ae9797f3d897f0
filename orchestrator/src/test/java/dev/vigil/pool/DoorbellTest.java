package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import dev.vigil.child.demo.DemoHandler;
import dev.vigil.close.CloseSettings;
import dev.vigil.mailbox.MappedMailbox;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The doorbell (docs/MAILBOX.md, "The doorbell") on real processes: idle C and Java children announce their sleep
 * and then use (almost) no CPU, where the same children with {@code VIGIL_CHILD_DOORBELL=off} (the pre-doorbell
 * polling loop) burn their spin, yield and 1 ms parks; a command to a sleeping child is answered at once because the
 * parent rings (the children's sleep bound is set to 5 s here, so an unrung child would answer only after seconds).
 */
@Timeout(120)
class DoorbellTest {
    private static final String SLEEP_BOUND_MILLIS = "5000";

    @TempDir
    Path tmp;

    @Test
    void idleChildrenSleepOnTheDoorbellAndARingWakesThemAtOnce() throws Exception {
        ChildSpec c = ChildSpec.cDemo().withEnv("VIGIL_CHILD_SLEEP_MILLIS", SLEEP_BOUND_MILLIS);
        ChildSpec java = ChildSpec.java(DemoHandler.class.getName()).withJvmOptions("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m")
                .withEnv("VIGIL_CHILD_SLEEP_MILLIS", SLEEP_BOUND_MILLIS);
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults()).open();
                Pool pool = Pool.builder(o, "doorbell").group("c", 2, c).group("java", 2, java)
                        .group("cpoll", 1, c.withEnv("VIGIL_CHILD_DOORBELL", "off"))
                        .group("javapoll", 1, java.withEnv("VIGIL_CHILD_DOORBELL", "off"))
                        .startTimeout(Duration.ofSeconds(60)).start()) {
            List<PoolChild> sleepers = new ArrayList<>();
            sleepers.addAll(List.of(pool.child("c", 0), pool.child("c", 1), pool.child("java", 0), pool.child("java", 1)));
            // one command each first: a Java child's first command runs its JIT, not the doorbell
            for (PoolChild child : pool.children()) {
                assertEquals(7, pool.control(child.group(), child.index(), DemoHandler.OP_ECHO, 7, Duration.ofSeconds(30)).value());
            }
            for (PoolChild child : sleepers) {
                awaitAsleep(child.mailbox().mailbox(), child);
            }
            // CPU over one second: asleep against polling, same runtime, same moment
            long[] before = new long[pool.children().size()];
            for (int i = 0; i < before.length; i++) {
                before[i] = cpuNanos(pool.children().get(i).pid());
            }
            Thread.sleep(1000);
            StringBuilder cpu = new StringBuilder();
            long cAsleep = 0;
            long javaAsleep = 0;
            long cPolling = 0;
            long javaPolling = 0;
            for (int i = 0; i < before.length; i++) {
                PoolChild child = pool.children().get(i);
                long used = cpuNanos(child.pid()) - before[i];
                cpu.append(child.group()).append('/').append(child.index()).append('=').append(used / 1000).append("us ");
                switch (child.group()) {
                    case "c" -> cAsleep = Math.max(cAsleep, used);
                    case "java" -> javaAsleep = Math.max(javaAsleep, used);
                    case "cpoll" -> cPolling = used;
                    default -> javaPolling = used;
                }
            }
            System.out.println("doorbell: CPU over 1 s: " + cpu);
            assertTrue(cAsleep * 10 < cPolling, "a sleeping C child uses under a tenth of a polling one's CPU: " + cpu);
            assertTrue(javaAsleep < javaPolling, "a sleeping Java child uses less CPU than a polling one: " + cpu);
            assertTrue(cAsleep < 2_000_000, "a sleeping C child uses under 2 ms of CPU per second: " + cpu);
            // a command to a sleeping child: rung, answered long before its 5 s sleep bound
            for (PoolChild child : sleepers) {
                long ringsBefore = child.mailbox().doorbellRings();
                long start = System.nanoTime();
                assertEquals(11, pool.control(child.group(), child.index(), DemoHandler.OP_ECHO, 11, Duration.ofSeconds(30)).value());
                long micros = (System.nanoTime() - start) / 1000;
                System.out.println("doorbell: round trip from asleep " + child.group() + "/" + child.index() + " " + micros + " us");
                assertTrue(child.mailbox().doorbellRings() > ringsBefore, "the parent rang: " + child.group() + "/" + child.index());
                assertTrue(micros < 1_000_000, "answered at once, not at the 5 s sleep bound: " + micros + " us");
            }
            // shutdown reaches sleeping children through the ring as well: the close is prompt
            for (PoolChild child : sleepers) {
                awaitAsleep(child.mailbox().mailbox(), child);
            }
            long closeStart = System.nanoTime();
            pool.closeWithReport();
            long closeMillis = (System.nanoTime() - closeStart) / 1_000_000;
            System.out.println("doorbell: close of sleeping children " + closeMillis + " ms");
            assertTrue(closeMillis < 4000, "the close rang the sleepers (bound 5 s): " + closeMillis + " ms");
        }
    }

    /**
     * A Java child blocks in its pipe's read, which has no timeout: its bound thread keeps the sleep bound. With the
     * parent's pipe ring taken away (the futex ring alone reaches no JVM), a request still gets served within about
     * one bound, and the sleeping child's heartbeat advances once per bound. Fails without the bound thread's ring
     * (the command times out) or its beat.
     */
    @Test
    void aJavaChildWhoseRingNeverCameIsStillServedWithinItsSleepBound() throws Exception {
        ChildSpec java = ChildSpec.java(DemoHandler.class.getName()).withJvmOptions("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m")
                .withEnv("VIGIL_CHILD_SLEEP_MILLIS", "1000");
        try (Orchestrator o = Orchestrator.builder().journalDir(tmp.resolve("journal")).closeSettings(CloseSettings.defaults()).open();
                Pool pool = Pool.builder(o, "unrung").group("java", 1, java).startTimeout(Duration.ofSeconds(60)).start()) {
            PoolChild child = pool.child("java", 0);
            assertEquals(7, pool.control("java", 0, DemoHandler.OP_ECHO, 7, Duration.ofSeconds(30)).value());
            awaitAsleep(child.mailbox().mailbox(), child);
            long beat = child.mailbox().heartbeat();
            Thread.sleep(2_500);
            assertTrue(child.mailbox().heartbeat() >= beat + 1, "asleep in its read, beaten by the bound thread: " + beat + " -> "
                    + child.mailbox().heartbeat());
            child.mailbox().alsoRing(null); // from here the parent's ring is the futex only: no JVM waits on it
            long start = System.nanoTime();
            assertEquals(11, pool.control("java", 0, DemoHandler.OP_ECHO, 11, Duration.ofSeconds(10)).value());
            long millis = (System.nanoTime() - start) / 1_000_000;
            System.out.println("doorbell: unrung Java child served after " + millis + " ms (bound 1000 ms)");
            assertTrue(millis < 5_000, "served within about one bound: " + millis + " ms");
        }
    }

    private static void awaitAsleep(MappedMailbox mailbox, PoolChild child) {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (mailbox.sleepingVolatile() == 0) {
            assertTrue(System.nanoTime() < deadline, "child never announced its sleep: " + child.group() + "/" + child.index());
            LockSupport.parkNanos(5_000_000);
        }
    }

    /** CPU time of every thread of {@code pid} (/proc/pid/task/N/schedstat: nanoseconds on the CPU). */
    static long cpuNanos(int pid) throws IOException {
        long total = 0;
        try (var tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    total += Long.parseLong(Files.readString(task.resolve("schedstat")).trim().split("\\s+")[0]);
                } catch (IOException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        return total;
    }
}
