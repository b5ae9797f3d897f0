package dev.vigil.close;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

import dev.vigil.close.decision.EscalationPolicy;
import dev.vigil.close.decision.ReapBudget;
import dev.vigil.journal.MonotonicClock;

/**
 * How a pool closes. Every setting has a name (a system property, read by {@link #from}; no environment
 * variable is read), a default and one line of docs in {@link #DOCS}.
 *
 * <p>Durations are written {@code 1500ms}, {@code 2s}, {@code 1m} or as ISO-8601 ({@code PT2S});
 * {@code 0} means "none" for the optional ones.
 */
public final class CloseSettings {
    public static final String WINDOW = "vigil.close.window";
    public static final String HARD_CAP = "vigil.close.hardCap";
    public static final String FIXED_BUDGET = "vigil.close.fixedBudget";
    public static final String ESCALATION = "vigil.close.escalation";
    public static final String GRACE = "vigil.close.grace";
    public static final String MAX_PARALLEL = "vigil.close.maxParallel";
    /** The most closes {@link Builder#maxParallelCloses} allows at once. */
    public static final int MAX_PARALLEL_CLOSES = 64;

    /** Setting name -> "default: docs", in the order a reader should meet them. */
    public static final Map<String, String> DOCS = docs(
            WINDOW, "5s: reap gives up only after this long with no progress (a reap, an ack, a heartbeat advance)",
            HARD_CAP, "0 (none): absolute bound on the reap stage however much progress is made",
            FIXED_BUDGET, "0 (none): when set, reap waits exactly this long from the broadcast, progress or not (for comparison)",
            ESCALATION, "leak: what to do with survivors, leak (report and keep) or term-then-kill",
            GRACE, "2s: term-then-kill waits this long after SIGTERM before SIGKILL, and again for the SIGKILLed to be reaped",
            MAX_PARALLEL, "4: retired, ignored: the close engine runs any number of closes at once on one thread");

    private static final CloseSettings DEFAULTS = new Builder().build();

    private final Duration window;
    private final Duration hardCap;
    private final Duration fixedBudget;
    private final EscalationPolicy escalation;
    private final Duration grace;
    private final int maxParallelCloses;

    private CloseSettings(Builder b) {
        this.window = b.window;
        this.hardCap = b.hardCap;
        this.fixedBudget = b.fixedBudget;
        this.escalation = b.escalation;
        this.grace = b.grace;
        this.maxParallelCloses = b.maxParallelCloses;
    }

    public static CloseSettings defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Defaults overridden by whichever of the named settings {@code lookup} knows (e.g. System::getProperty). */
    public static CloseSettings from(Function<String, String> lookup) {
        Builder b = builder();
        String v;
        if ((v = lookup.apply(WINDOW)) != null) {
            b.window(parseDuration(WINDOW, v));
        }
        if ((v = lookup.apply(HARD_CAP)) != null) {
            b.hardCap(parseDuration(HARD_CAP, v));
        }
        if ((v = lookup.apply(FIXED_BUDGET)) != null) {
            b.fixedBudget(parseDuration(FIXED_BUDGET, v));
        }
        if ((v = lookup.apply(ESCALATION)) != null) {
            b.escalation(EscalationPolicy.parse(v));
        }
        if ((v = lookup.apply(GRACE)) != null) {
            b.grace(parseDuration(GRACE, v));
        }
        if ((v = lookup.apply(MAX_PARALLEL)) != null) {
            b.maxParallelCloses(Integer.parseInt(v.trim()));
        }
        return b.build();
    }

    public Builder toBuilder() {
        return new Builder().window(window).hardCap(hardCap).fixedBudget(fixedBudget)
                .escalation(escalation).grace(grace).maxParallelCloses(maxParallelCloses);
    }

    /** No-progress window of the reap stage. */
    public Duration window() {
        return window;
    }

    /** Absolute bound on the reap stage; {@link Duration#ZERO} = none. */
    public Duration hardCap() {
        return hardCap;
    }

    /** Fixed reap budget used instead of the no-progress window; {@link Duration#ZERO} = not used. */
    public Duration fixedBudget() {
        return fixedBudget;
    }

    public EscalationPolicy escalation() {
        return escalation;
    }

    public Duration grace() {
        return grace;
    }

    public int maxParallelCloses() {
        return maxParallelCloses;
    }

    /** A fresh budget for one reap stage that starts at {@code startNanos}. */
    public ReapBudget newBudget(long startNanos) {
        return ReapBudget.of(window.toNanos(), hardCap.toNanos(), fixedBudget.toNanos(), startNanos);
    }

    private static Map<String, String> docs(String... pairs) {
        Map<String, String> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }

    static Duration parseDuration(String name, String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (t.startsWith("pt")) {
                return Duration.parse(t.toUpperCase(java.util.Locale.ROOT));
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1).trim()));
            }
            if (t.equals("0")) {
                return Duration.ZERO;
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(name + "=" + text + " is not a duration (e.g. 1500ms, 2s, 1m, PT2S)", e);
        }
        throw new IllegalArgumentException(name + "=" + text + " is not a duration (e.g. 1500ms, 2s, 1m, PT2S)");
    }

    @Override
    public String toString() {
        return WINDOW + "=" + window + " " + HARD_CAP + "=" + hardCap + " " + FIXED_BUDGET + "=" + fixedBudget + " "
                + ESCALATION + "=" + escalation.label() + " " + GRACE + "=" + grace + " " + MAX_PARALLEL + "=" + maxParallelCloses;
    }

    /** Builds {@link CloseSettings}; unset values keep the defaults of {@link #DOCS}. */
    public static final class Builder {
        private Duration window = Duration.ofSeconds(5);
        private Duration hardCap = Duration.ZERO;
        private Duration fixedBudget = Duration.ZERO;
        private EscalationPolicy escalation = EscalationPolicy.LEAK;
        private Duration grace = Duration.ofSeconds(2);
        private int maxParallelCloses = 4;

        public Builder window(Duration d) {
            this.window = MonotonicClock.positiveSpan(WINDOW, d);
            return this;
        }

        public Builder hardCap(Duration d) {
            this.hardCap = nonNegative(HARD_CAP, d);
            return this;
        }

        public Builder fixedBudget(Duration d) {
            this.fixedBudget = nonNegative(FIXED_BUDGET, d);
            return this;
        }

        public Builder escalation(EscalationPolicy p) {
            this.escalation = Objects.requireNonNull(p, ESCALATION);
            return this;
        }

        public Builder grace(Duration d) {
            this.grace = nonNegative(GRACE, d);
            return this;
        }

        public Builder maxParallelCloses(int n) {
            if (n < 1 || n > MAX_PARALLEL_CLOSES) {
                throw new IllegalArgumentException(MAX_PARALLEL + "=" + n + " must be in 1.." + MAX_PARALLEL_CLOSES);
            }
            this.maxParallelCloses = n;
            return this;
        }

        public CloseSettings build() {
            return new CloseSettings(this);
        }

        private static Duration nonNegative(String name, Duration d) {
            if (d == null || d.isNegative()) {
                throw new IllegalArgumentException(name + "=" + d + " must be >= 0");
            }
            return MonotonicClock.checkSpan(name, d);
        }
    }
}
