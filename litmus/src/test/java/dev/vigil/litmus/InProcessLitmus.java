package dev.vigil.litmus;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.Outcome;

/**
 * Runs one jcstress-annotated litmus test inside this JVM, without jcstress's forks: the same test classes, a
 * smaller harness. One thread per {@link Actor}; each round the actors start together on a fresh batch of states
 * and each runs its method over the whole batch, then the {@link Arbiter} runs and every result is counted under
 * its printed form ("1, 0") and classified by the test's {@link Outcome}s (an outcome no annotation names is
 * forbidden, as in jcstress). Rounds go on until the budget is spent, or earlier once {@code enough} says so.
 */
final class InProcessLitmus {
    static final int BATCH = 1024;

    /** Counts per outcome, and how the test classifies each. */
    record Tally(String test, Map<String, Long> counts, Map<String, Expect> expect, long rounds, Duration elapsed) {
        long samples(Expect kind) {
            return counts.entrySet().stream().filter(e -> expect.getOrDefault(e.getKey(), Expect.FORBIDDEN) == kind)
                    .mapToLong(Map.Entry::getValue).sum();
        }

        /** Outcomes neither listed nor acceptable: FORBIDDEN ones and unknown ones. */
        long forbidden() {
            return counts.entrySet().stream().filter(e -> !expect.containsKey(e.getKey()) || expect.get(e.getKey()) == Expect.FORBIDDEN)
                    .mapToLong(Map.Entry::getValue).sum();
        }

        long total() {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    private InProcessLitmus() {
    }

    static Tally run(Class<?> test, Duration budget, Predicate<Tally> enough) throws Exception {
        Map<String, Expect> expect = new TreeMap<>();
        for (Outcome outcome : test.getAnnotationsByType(Outcome.class)) {
            for (String id : outcome.id()) {
                expect.put(id, outcome.expect());
            }
        }
        List<MethodHandle> actors = new ArrayList<>();
        MethodHandle arbiter = null;
        Class<?> resultType = null;
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (Method method : test.getDeclaredMethods()) {
            boolean isActor = method.isAnnotationPresent(Actor.class);
            if (!isActor && !method.isAnnotationPresent(Arbiter.class)) {
                continue;
            }
            if (method.getParameterCount() == 1) {
                resultType = method.getParameterTypes()[0];
            }
            MethodHandle handle = lookup.unreflect(method);
            handle = method.getParameterCount() == 0 ? MethodHandles.dropArguments(handle, 1, Object.class) : handle;
            handle = handle.asType(MethodType.methodType(void.class, Object.class, Object.class));
            if (isActor) {
                actors.add(handle);
            } else {
                arbiter = handle;
            }
        }
        if (resultType == null || actors.isEmpty()) {
            throw new IllegalArgumentException("not a litmus test with actors and a result: test=" + test.getName());
        }
        Constructor<?> newState = test.getDeclaredConstructor();
        Constructor<?> newResult = resultType.getDeclaredConstructor();

        Round round = new Round(actors.size());
        List<Thread> threads = new ArrayList<>();
        for (int a = 0; a < actors.size(); a++) {
            MethodHandle actor = actors.get(a);
            Thread thread = new Thread(() -> round.serve(actor), "litmus-" + test.getSimpleName() + "-" + a);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        Map<String, Long> counts = new TreeMap<>();
        long start = System.nanoTime();
        long deadline = start + budget.toNanos();
        long rounds = 0;
        try {
            do {
                Object[] states = new Object[BATCH];
                Object[] results = new Object[BATCH];
                for (int i = 0; i < BATCH; i++) {
                    states[i] = newState.newInstance();
                    results[i] = newResult.newInstance();
                }
                round.go(states, results);
                for (int i = 0; i < BATCH; i++) {
                    if (arbiter != null) {
                        arbiter.invokeExact(states[i], results[i]);
                    }
                    counts.merge(results[i].toString(), 1L, Long::sum);
                }
                rounds++;
            } while (System.nanoTime() < deadline
                    && !enough.test(new Tally(test.getName(), counts, expect, rounds, Duration.ofNanos(System.nanoTime() - start))));
        } catch (Throwable e) {
            throw new IllegalStateException("litmus test failed to run: test=" + test.getName() + " error=" + e, e);
        } finally {
            round.stop();
            for (Thread thread : threads) {
                thread.join(10_000);
            }
        }
        return new Tally(test.getName(), counts, expect, rounds, Duration.ofNanos(System.nanoTime() - start));
    }

    /** The start line and finish line the actors share; spins briefly, then yields (the machine may be loaded). */
    private static final class Round {
        private final int actors;
        private final AtomicInteger started = new AtomicInteger();
        private final AtomicInteger finished = new AtomicInteger();
        private volatile int generation;
        private volatile boolean stopped;
        private volatile Throwable failure;
        private Object[] states;
        private Object[] results;

        Round(int actors) {
            this.actors = actors;
        }

        void go(Object[] states, Object[] results) throws Throwable {
            this.states = states;
            this.results = results;
            finished.set(0);
            started.set(0);
            generation++; // volatile: publishes the batch
            while (finished.get() < actors) {
                pause();
                if (failure != null) {
                    throw failure;
                }
            }
        }

        void serve(MethodHandle actor) {
            int seen = 0;
            while (!stopped) {
                if (generation == seen) {
                    pause();
                    continue;
                }
                seen = generation;
                Object[] s = states;
                Object[] r = results;
                started.incrementAndGet();
                while (started.get() < actors) {
                    Thread.onSpinWait(); // start together: the overlap is the point
                }
                try {
                    for (int i = 0; i < s.length; i++) {
                        actor.invokeExact(s[i], r[i]);
                    }
                } catch (Throwable e) {
                    failure = e;
                }
                finished.incrementAndGet();
            }
        }

        void stop() {
            stopped = true;
        }

        private static void pause() {
            Thread.yield();
        }
    }
}
