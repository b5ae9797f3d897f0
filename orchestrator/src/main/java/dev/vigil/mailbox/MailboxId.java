package dev.vigil.mailbox;

import java.util.Objects;

/** Names one child's mailbox: pool, group inside the pool, index inside the group. */
public record MailboxId(String poolId, String group, int index) {
    private static final char SEPARATOR = '\u001f';

    public MailboxId {
        Objects.requireNonNull(poolId, "poolId");
        Objects.requireNonNull(group, "group");
        if (poolId.indexOf(SEPARATOR) >= 0 || group.indexOf(SEPARATOR) >= 0 || index < 0) {
            throw new MailboxException("invalid mailbox id: pool=" + poolId + " group=" + group + " index=" + index);
        }
    }

    /** The map key: fields joined by the ASCII unit separator, which ids may not contain. */
    String key() {
        return poolId + SEPARATOR + group + SEPARATOR + index;
    }

    static MailboxId ofKey(CharSequence key) {
        String[] parts = key.toString().split(String.valueOf(SEPARATOR), -1);
        if (parts.length != 3) {
            throw new MailboxException("malformed mailbox key: key=" + key.toString().replace(SEPARATOR, '/'));
        }
        return new MailboxId(parts[0], parts[1], Integer.parseInt(parts[2]));
    }

    @Override
    public String toString() {
        return "pool=" + poolId + " group=" + group + " index=" + index;
    }
}
