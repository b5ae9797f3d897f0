package dev.vigil.spawn;

/**
 * A helper JVM for {@link ParentDeathTest} (started with ProcessBuilder; it is not a pool child):
 * spawns {@code sleep 600} through a Spawner, prints {@code pid=<child>}, then waits to be killed.
 */
public final class OrphanedChildMain {
    private OrphanedChildMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Spawner spawner = Spawner.start();
        ChildProcess child = spawner.spawn(SpawnRequest.of("sleep", "600").discardingOutput());
        System.out.println("pid=" + child.pid());
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
