package dev.vigil.replay;

/** A child's place in its pool: group name and index; names its mailbox too. */
public record ChildKey(String group, int index) implements Comparable<ChildKey> {
    @Override
    public int compareTo(ChildKey o) {
        int c = group.compareTo(o.group);
        return c != 0 ? c : Integer.compare(index, o.index);
    }

    // equals and hashCode written out: a record's generated ones are bootstrapped through method handles on their first
    // call, ~10 classes spun at run time that no class-data archive of JDK 17 holds (bin/vigil-bench replay, `show`).
    @Override
    public boolean equals(Object o) {
        return o instanceof ChildKey k && index == k.index && group.equals(k.group);
    }

    @Override
    public int hashCode() {
        return 31 * group.hashCode() + index;
    }

    @Override
    public String toString() {
        return group + "/" + index;
    }
}
