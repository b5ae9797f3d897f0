package dev.vigil.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many children in one orchestrator (docs/BENCHMARKS.md, "A thousand children"): 10 pools of C, exec and Java children
 * started at once, every mailbox child answering one command, every pool closed cleanly at once, and the orchestrator's
 * threads not growing with the children. Bounded in the default suite ({@value #DEFAULT_CHILDREN} children, 2 Java);
 * {@code -Dvigil.scale.children=1000} runs the thousand (the {@code slow} size; {@code bin/vigil-bench scale} measures it).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ScaleTest {
    static final int DEFAULT_CHILDREN = 100;

    @TempDir
    Path tmp;

    @Test
    void tenPoolsOfMixedChildrenStartAnswerAndCloseAtOnce() throws Exception {
        int n = Integer.getInteger("vigil.scale.children", DEFAULT_CHILDREN);
        ScaleBench.Figures f = ScaleBench.run("mixed", n, 2, tmp);
        System.out.println("scale: " + f.row());
        assertEquals(ScaleBench.POOLS, f.cleanPools(), "every pool closed cleanly: " + f.row());
        int mailboxChildren = n - 3 * (n / ScaleBench.POOLS); // 3 of the 10 pools are plain executables
        assertEquals(mailboxChildren, f.answered(), "every mailbox child answered: " + f.row());
        assertTrue(f.threads() < 80, "the orchestrator's threads do not grow with its children: " + f.row());
        assertTrue(f.fds() < 2 * n + 200, "about one descriptor per child (its pidfd; a Java child's doorbell too): " + f.row());
    }
}
