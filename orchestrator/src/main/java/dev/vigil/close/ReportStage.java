package dev.vigil.close;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

import dev.vigil.close.decision.CloseReport;
import dev.vigil.journal.CloseCompleted;
import dev.vigil.journal.MonotonicClock;

/** Stage 7: settle what is still in flight, build the {@link CloseReport}, journal it, and answer the caller. */
final class ReportStage extends CloseStage {
    /** How long a close waits for its events to reach the journal file before it answers anyway. */
    private static final java.time.Duration FLUSH_BOUND = java.time.Duration.ofSeconds(2);

    private final AtomicInteger running;
    private final IntConsumer laneFreed;

    ReportStage(int lane, AtomicInteger running, IntConsumer laneFreed) {
        super(lane);
        this.running = running;
        this.laneFreed = laneFreed;
    }

    @Override
    boolean runsAfterFailure() {
        return true;
    }

    @Override
    void run(CloseJob job) {
        try {
            if (job.failure != null) {
                job.result.completeExceptionally(new IllegalStateException("pool=" + job.poolId() + " closeId="
                        + job.closeId + " close pipeline failed: " + job.failure, job.failure));
                return;
            }
            job.target.abandonInFlight(job.closeId);
            CloseReport report = report(job);
            int reaped = 0;
            for (CloseReport.Child c : report.children()) {
                if (c.outcome() != CloseReport.ChildOutcome.SURVIVOR) {
                    reaped++;
                }
            }
            job.journal.append(new CloseCompleted(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId,
                    report.outcome().name(), reaped, report.children().size() - reaped, report.durationNanos(),
                    report.toJson()));
            // The report goes back only once its close is in the journal (or the journal says it is not).
            java.util.Optional<dev.vigil.journal.JournalGap> gap = job.journal.flush(FLUSH_BOUND);
            if (gap.isPresent()) {
                report = report.withJournalGap(gap.get().describe());
            }
            job.target.closeFinished(report);
            job.result.complete(report);
        } catch (Throwable t) {
            job.result.completeExceptionally(t);
        } finally {
            running.decrementAndGet();
            laneFreed.accept(job.lane);
        }
    }

    static CloseReport report(CloseJob job) {
        List<CloseReport.Child> children = new ArrayList<>();
        for (CloseJob.ChildTrack t : job.children) {
            ClosingChild c = t.child;
            String diagnosis = t.diagnosis == null ? null : t.diagnosis.survivorClass().name();
            String evidence = t.diagnosis == null ? null : t.diagnosis.line();
            if (t.exit == null) {
                children.add(new CloseReport.Child(c.group(), c.index(), c.pid(), c.kind(),
                        CloseReport.ChildOutcome.of(false, false, 0), -1, 0, -1, diagnosis, evidence));
                continue;
            }
            CloseReport.ChildOutcome outcome = CloseReport.ChildOutcome.of(true, t.escalatedNanos != 0, t.exit.signal());
            children.add(new CloseReport.Child(c.group(), c.index(), c.pid(), c.kind(), outcome,
                    t.exit.signal() > 0 ? -1 : t.exit.exitCode(), t.exit.signal(), t.sinceBroadcastNanos, diagnosis,
                    evidence));
        }
        children.sort(java.util.Comparator.comparing(CloseReport.Child::group).thenComparingInt(CloseReport.Child::index));
        long duration = MonotonicClock.nanos() - job.startNanos;
        return new CloseReport(job.poolId(), job.closeId, CloseReport.outcomeOf(children), duration, children);
    }
}
