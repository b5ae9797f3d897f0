package dev.vigil.close;

import dev.vigil.close.decision.CloseReport;

/** A close left a child not cleanly reaped (a survivor, or one killed by escalation); carries the full report. */
public final class CloseFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient CloseReport report;

    public CloseFailedException(CloseReport report) {
        super(message(report));
        this.report = report;
    }

    public CloseReport report() {
        return report;
    }

    private static String message(CloseReport r) {
        long survivors = r.children().stream().filter(c -> c.outcome() == CloseReport.ChildOutcome.SURVIVOR).count();
        long killed = r.children().stream()
                .filter(c -> c.outcome() == CloseReport.ChildOutcome.KILLED_BY_ESCALATION).count();
        return "close failed pool=" + r.poolId() + " closeId=" + r.closeId() + " children=" + r.children().size()
                + " survivors=" + survivors + " killed_by_escalation=" + killed + r.describeFailures();
    }
}
