package dev.vigil.pool;

import dev.vigil.close.decision.CloseReport;

/**
 * A pool did not start (a spawn failed, a child reported INIT_FAILED, exited, or was not ready in
 * time). What had started was closed again; {@link #rollback()} is that close's report (null when
 * nothing had started).
 */
public final class PoolStartException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient CloseReport rollback;

    PoolStartException(String message, Throwable cause, CloseReport rollback) {
        super(message + (rollback == null ? " rollback=none" : " rollback=closeId:" + rollback.closeId() + " outcome:"
                + rollback.outcome() + rollback.describeFailures()), cause);
        this.rollback = rollback;
    }

    public CloseReport rollback() {
        return rollback;
    }
}
