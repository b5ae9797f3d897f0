package dev.vigil.pool;

import java.nio.file.Path;
import java.time.Duration;

import dev.vigil.close.CloseSettings;
import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.contain.ContainmentSettings;

/**
 * A throwaway orchestrator process for the crash tests: opens an orchestrator on {@code args[0]} with
 * containment {@code args[1]} (cgroup / pgroup; {@code args[3]} = guardian-off runs without its guardian), starts pool "forking" of 3 TERM-ignoring shell children
 * that each fork a grandchild and 2 C mailbox children (the environment it inherits carries the test's mark), prints
 * {@code STARTED <guardian pid>}, waits (up to 20 s) for the 6 marked {@code sleep}s, begins a close with a 30 s window on another thread, prints
 * {@code CLOSING}, and waits to be killed. Started with ProcessBuilder by the test: it is no pool child.
 */
public final class ForkingPoolHolderMain {
    private ForkingPoolHolderMain() {
    }

    public static void main(String[] args) throws Exception {
        ContainmentSettings containment = args[1].equals("pgroup") ? ContainmentSettings.processGroups()
                : ContainmentSettings.cgroups(null);
        if (args.length > 3 && args[3].equals("guardian-off")) {
            containment = containment.withGuardian(false);
        }
        Orchestrator o = Orchestrator.builder().journalDir(Path.of(args[0])).containment(containment)
                .closeSettings(CloseSettings.defaults()).open();
        Pool pool = Pool.builder(o, "forking").closeSettings(CloseSettings.builder().window(Duration.ofSeconds(30))
                        .escalation(EscalationPolicy.TERM_THEN_KILL).build())
                .group("g", 3, ChildSpec.exec("/bin/sh", "-c", "trap '' TERM; sh -c 'sleep 600' & sleep 600")
                        .withEnv(MarkedProcesses.VARIABLE, args[2]))
                .group("chips", 2, ChildSpec.cDemo().withEnv(MarkedProcesses.VARIABLE, args[2]))
                .start();
        System.out.println("STARTED " + (o.guardian() == null ? 0 : o.guardian().pid()));
        System.out.flush();
        // The close begins once every shell has forked its grandchild, however slow the machine: with only direct
        // children in the container, a C child's mailbox would be freed at its own reap, before the crash.
        new MarkedProcesses(args[2]).awaitNamed("sleep", 6, 20_000);
        Thread closer = new Thread(pool::close, "closer");
        closer.start();
        Thread.sleep(100);
        System.out.println("CLOSING");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
