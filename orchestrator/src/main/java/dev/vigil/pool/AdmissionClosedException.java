package dev.vigil.pool;

/** An operation started after the pool's close began (the admission fence): {@code pool=p1 operation=control group=g child=0 closeId=...}. */
public final class AdmissionClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public AdmissionClosedException(String poolId, String operation, String group, int index, long closeId) {
        super("pool=" + poolId + " operation=" + operation + " group=" + group + " child=" + index + " closeId=" + closeId
                + ": admission closed, the pool is closing or closed");
    }
}
