package dev.vigil.close;

import dev.vigil.journal.MailboxReleased;
import dev.vigil.journal.MonotonicClock;

/**
 * Stage 6: drain every child's transition ring into the journal, then free the mailbox of every
 * reaped child. A survivor keeps its mailbox: freeing a live child's mailbox is a use-after-free.
 */
final class ReleaseStage extends CloseStage {
    ReleaseStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) {
        job.collectReaped();
        for (CloseJob.ChildTrack t : job.children) {
            t.child.drainTransitions(job.closeId);
        }
        for (CloseJob.ChildTrack t : job.children) {
            if (t.exit == null || !t.child.hasMailbox()) {
                continue;
            }
            if (!t.child.exit().isDone()) {
                throw new IllegalStateException("pool=" + job.poolId() + " group=" + t.child.group() + " child="
                        + t.child.index() + " pid=" + t.child.pid() + " mailbox release refused: child not reaped");
            }
            long offset = t.child.mailboxOffset();
            t.child.releaseMailbox();
            job.journal.append(new MailboxReleased(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId,
                    t.child.group(), t.child.index(), offset));
        }
    }
}
