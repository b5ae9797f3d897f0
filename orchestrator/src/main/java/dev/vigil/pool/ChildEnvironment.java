package dev.vigil.pool;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A child's extra environment ({@link ChildSpec#env}): immutable, each variable checked once, when it is added.
 * {@link #plus} costs what it adds, not what is there: the new map shares this one and is made flat at its first
 * read. Before, {@code withEnv} copied and checked every variable on each call: 7,000 single calls of 1 KB took over
 * 60 s.
 */
final class ChildEnvironment extends AbstractMap<String, String> {
    static final ChildEnvironment EMPTY = new ChildEnvironment(null, Map.of());

    /** What this one adds to, null once {@link #flat} is made (or for a flat one). Guarded by this. */
    private ChildEnvironment below;
    /** The variables added here (checked); once made flat, all of them. Guarded by this. */
    private Map<String, String> own;
    private boolean flat;

    private ChildEnvironment(ChildEnvironment below, Map<String, String> own) {
        this.below = below;
        this.own = own;
        this.flat = below == null;
    }

    /** {@code env} checked, as a child environment (itself when it is one already). */
    static ChildEnvironment of(Map<String, String> env) {
        return env instanceof ChildEnvironment c ? c : EMPTY.plus(env);
    }

    /** This environment with {@code more} over it; only {@code more}'s variables are checked. */
    ChildEnvironment plus(Map<String, String> more) {
        Objects.requireNonNull(more, "env");
        if (more.isEmpty()) {
            return this;
        }
        Map<String, String> added = new LinkedHashMap<>();
        more.forEach((name, value) -> {
            Objects.requireNonNull(name, "env name");
            Objects.requireNonNull(value, () -> "env " + name + " value");
            String why = ChildSpec.whyNotEnvironmentVariable(name, value);
            if (why != null) {
                throw new IllegalArgumentException("child env " + why);
            }
            added.put(name, value);
        });
        return new ChildEnvironment(this, Collections.unmodifiableMap(added));
    }

    /** Every variable, made flat once: the layers below, oldest first, then each later one over them. */
    private synchronized Map<String, String> flat() {
        if (!flat) {
            List<Map<String, String>> layers = new ArrayList<>();
            ChildEnvironment at = this;
            for (; !at.isFlatNow(); at = at.belowNow()) {
                layers.add(at.ownNow());
            }
            Map<String, String> all = new LinkedHashMap<>(at.flat());
            for (int i = layers.size() - 1; i >= 0; i--) {
                all.putAll(layers.get(i));
            }
            own = Collections.unmodifiableMap(all);
            below = null; // what it shared is garbage once nothing else holds it
            flat = true;
        }
        return own;
    }

    private synchronized boolean isFlatNow() {
        return flat;
    }

    private synchronized ChildEnvironment belowNow() {
        return below;
    }

    private synchronized Map<String, String> ownNow() {
        return own;
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return flat().entrySet();
    }

    @Override
    public String get(Object key) {
        return flat().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return flat().containsKey(key);
    }

    @Override
    public int size() {
        return flat().size();
    }
}
