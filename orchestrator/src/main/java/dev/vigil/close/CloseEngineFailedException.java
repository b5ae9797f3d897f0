package dev.vigil.close;

/**
 * A close failed because the close engine could not run it (it gave up after a storm of faults, or faulted on the
 * request itself): its pool kills and reaps its children itself. One line: the pool, the close, why.
 */
public final class CloseEngineFailedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String poolId;

    public CloseEngineFailedException(String poolId, long closeId, String why) {
        super("pool=" + poolId + " closeId=" + closeId + " close failed: " + why);
        this.poolId = poolId;
    }

    public String poolId() {
        return poolId;
    }
}
