package dev.vigil.pool;

import java.time.Duration;
import java.util.Objects;

import dev.vigil.journal.MonotonicClock;

/**
 * What a pool does about a child that exits while the pool runs (outside any close). Whatever the policy, the
 * exit is journaled at once ({@code ChildExited}) and the child's pending command fails at once naming the exit.
 *
 * <ul>
 * <li>{@link Kind#KEEP} (default): nothing more; the next close reports the child as reaped.</li>
 * <li>{@link Kind#FAIL_POOL}: the pool fails ({@code PoolFailed}) and closes at once through the close engine.</li>
 * <li>{@link Kind#RESTART}: the child is started again (same group and index, same spec) after a backoff, as an OTP
 *     supervisor would, within an intensity limit: more than {@code maxRestarts} restarts of the pool's children
 *     within {@code period} and the pool fails instead. The backoff doubles with each restart inside the period,
 *     from {@code backoff} up to {@code maxBackoff}. Each restart is journaled ({@code ChildRestarted}).</li>
 * </ul>
 */
public record ExitPolicy(Kind kind, int maxRestarts, Duration period, Duration backoff, Duration maxBackoff) {
    /** The policy's kind; its {@link #label()} is what the spec file and the journal say. */
    public enum Kind {
        KEEP("keep"), FAIL_POOL("fail-pool"), RESTART("restart");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        /** The kind a spec label names, or null. */
        public static Kind ofLabel(String label) {
            for (Kind k : values()) {
                if (k.label.equals(label)) {
                    return k;
                }
            }
            return null;
        }
    }

    public static final int DEFAULT_MAX_RESTARTS = 3;
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(5);
    public static final Duration DEFAULT_BACKOFF = Duration.ofMillis(100);
    public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(5);

    public ExitPolicy {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(backoff, "backoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (maxRestarts < 0) {
            throw new IllegalArgumentException("exit policy maxRestarts=" + maxRestarts + " must be >= 0");
        }
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("exit policy period=" + period + " must be > 0");
        }
        if (backoff.isNegative() || maxBackoff.compareTo(backoff) < 0) {
            throw new IllegalArgumentException("exit policy backoff=" + backoff + " maxBackoff=" + maxBackoff
                    + ": need 0 <= backoff <= maxBackoff");
        }
        MonotonicClock.checkSpan("exit policy period", period);
        MonotonicClock.checkSpan("exit policy maxBackoff", maxBackoff);
    }

    /** Journal it, fail its command, go on (the default). */
    public static ExitPolicy keep() {
        return new ExitPolicy(Kind.KEEP, 0, DEFAULT_PERIOD, Duration.ZERO, Duration.ZERO);
    }

    /** Fail the pool and close it at once. */
    public static ExitPolicy failPool() {
        return new ExitPolicy(Kind.FAIL_POOL, 0, DEFAULT_PERIOD, Duration.ZERO, Duration.ZERO);
    }

    /** Restart, at most {@code maxRestarts} times within {@code period} (then fail the pool), backoff doubling. */
    public static ExitPolicy restart(int maxRestarts, Duration period, Duration backoff, Duration maxBackoff) {
        return new ExitPolicy(Kind.RESTART, maxRestarts, period, backoff, maxBackoff);
    }

    /** Restart with the defaults: 3 within 5 s, backoff 100 ms doubling up to 5 s. */
    public static ExitPolicy restart() {
        return restart(DEFAULT_MAX_RESTARTS, DEFAULT_PERIOD, DEFAULT_BACKOFF, DEFAULT_MAX_BACKOFF);
    }

    public String label() {
        return kind.label();
    }
}
