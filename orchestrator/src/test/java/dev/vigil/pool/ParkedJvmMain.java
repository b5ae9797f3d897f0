package dev.vigil.pool;

import java.util.concurrent.locks.LockSupport;

/**
 * IdleBench's floor for an idle Java child: started with a Java child's own JVM argv, it does nothing but park its
 * main thread, so whatever CPU it uses is its JVM's own timers (C1's compile-queue wait, the chunk-pool cleaner).
 */
public final class ParkedJvmMain {
    private ParkedJvmMain() {
    }

    public static void main(String[] args) {
        while (true) {
            LockSupport.park();
        }
    }
}
