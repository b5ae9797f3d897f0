package dev.vigil.close;

import java.util.concurrent.atomic.AtomicInteger;

import dev.vigil.journal.AdmissionFenced;
import dev.vigil.journal.CloseStarted;
import dev.vigil.journal.MonotonicClock;

/** Stage 1: journal CloseStarted, close admission, and take the set of children this close answers for. */
final class FenceStage extends CloseStage {
    private final AtomicInteger running;

    FenceStage(int lane, AtomicInteger running) {
        super(lane);
        this.running = running;
    }

    @Override
    void run(CloseJob job) {
        int overlapping = running.incrementAndGet();
        job.startNanos = MonotonicClock.nanos();
        for (ClosingChild c : job.target.trackedChildren()) {
            job.children.add(new CloseJob.ChildTrack(c));
        }
        CloseSettings s = job.settings;
        job.journal.append(new CloseStarted(job.startNanos, job.pid(), job.poolId(), job.closeId, job.children.size(),
                s.window().toNanos(), s.hardCap().toNanos(), s.fixedBudget().toNanos(), s.escalation().label(),
                overlapping));
        int inFlight = job.target.fenceAdmission(job.closeId);
        job.journal.append(new AdmissionFenced(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId, inFlight));
    }
}
