package dev.vigil.close;

import dev.vigil.close.decision.MailboxWords;
import dev.vigil.close.decision.ProcSnapshot;
import dev.vigil.close.decision.SurvivorDiagnosis;
import dev.vigil.close.decision.SurvivorEvidence;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.SurvivorDiagnosed;

/** Stage 4: classify every child still alive after the reap budget, and journal the evidence. */
final class DiagnoseStage extends CloseStage {
    DiagnoseStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) {
        job.collectReaped();
        long now = MonotonicClock.nanos();
        ReapStage.sampleMailboxes(job, now);
        for (CloseJob.ChildTrack t : job.unreaped()) {
            MailboxWords w = t.child.mailboxWords();
            SurvivorEvidence e = new SurvivorEvidence(t.child.group(), t.child.index(), t.child.pid(), t.child.kind(), w,
                    w == null ? -1 : t.watch.heartbeatAgeNanos(now), job.settings.window().toNanos(),
                    ProcSnapshot.read(t.child.pid()), job.journal.lastEvents(job.poolId(), t.child.group(), t.child.index()));
            if (t.child.exit().isDone()) {
                continue; // exited while we looked: the next collect reports it as reaped, not as a survivor
            }
            t.diagnosis = SurvivorDiagnosis.classify(e);
            job.journal.append(new SurvivorDiagnosed(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId,
                    t.child.group(), t.child.index(), t.child.pid(), t.diagnosis.survivorClass().name(),
                    t.diagnosis.line()));
        }
        job.collectReaped();
    }
}
