package dev.vigil.close;

import java.util.concurrent.TimeUnit;

import dev.vigil.close.decision.ChildWatch;
import dev.vigil.close.decision.MailboxWords;
import dev.vigil.close.decision.ReapBudget;
import dev.vigil.journal.ChildAcked;
import dev.vigil.journal.MonotonicClock;

/**
 * Stage 3: collect exits as they happen, under the close's {@link ReapBudget}. Exits wake it at
 * once; acks and heartbeats (shared-memory words without a notification) are sampled every
 * {@link #SAMPLE_NANOS}. Progress is a reap, or what {@link ChildWatch} says it is.
 */
final class ReapStage extends CloseStage {
    static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    ReapStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) throws InterruptedException {
        ReapBudget budget = job.settings.newBudget(job.broadcastNanos);
        while (true) {
            long now = MonotonicClock.nanos();
            if (job.collectReaped() > 0) {
                budget.progress(now);
            }
            if (sampleMailboxes(job, now)) {
                budget.progress(now);
            }
            if (job.unreaped().isEmpty() || budget.expired(now)) {
                return;
            }
            job.awaitReap(Math.min(SAMPLE_NANOS, budget.remainingNanos(now)));
        }
    }

    /** Journals first acks and notes heartbeat changes; true if anything moved. */
    static boolean sampleMailboxes(CloseJob job, long now) {
        boolean moved = false;
        for (CloseJob.ChildTrack t : job.children) {
            if (t.exit != null) {
                continue;
            }
            MailboxWords w = t.child.mailboxWords();
            if (w == null) {
                continue;
            }
            ChildWatch.Seen seen = t.watch.observe(w, now);
            if (seen.firstAck()) {
                job.journal.append(new ChildAcked(now, job.pid(), job.poolId(), job.closeId, t.child.group(),
                        t.child.index(), t.child.pid(), w.ackNanos()));
            }
            moved |= seen.progress();
        }
        return moved;
    }
}
