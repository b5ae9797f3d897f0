package dev.vigil.replay;

/** A child's place in its pool: group name and index; names its mailbox too. */
public record ChildKey(String group, int index) implements Comparable<ChildKey> {
    @Override
    public int compareTo(ChildKey o) {
        int c = group.compareTo(o.group);
        return c != 0 ? c : Integer.compare(index, o.index);
    }

    @Override
    public String toString() {
        return group + "/" + index;
    }
}
