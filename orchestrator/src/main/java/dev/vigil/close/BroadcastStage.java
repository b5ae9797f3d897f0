package dev.vigil.close;

import dev.vigil.close.decision.ChildWatch;
import dev.vigil.journal.MonotonicClock;
import dev.vigil.journal.ShutdownPublished;

/**
 * Stage 2: publish shutdown to every child (the shutdown word's CAS, or a plain executable's stop
 * signal) and journal each result. Also arms the reap wake-ups, so no exit is missed in between.
 */
final class BroadcastStage extends CloseStage {
    BroadcastStage(int lane) {
        super(lane);
    }

    @Override
    void run(CloseJob job) {
        // The epoch is the close id: non-zero, unique, and it tells the replay which close won the word.
        long epoch = job.closeId;
        job.broadcastNanos = MonotonicClock.nanos();
        for (CloseJob.ChildTrack t : job.children) {
            t.watch = new ChildWatch(t.child.mailboxWords(), job.broadcastNanos);
            t.child.exit().whenComplete((exit, error) -> job.wakeups.offer(t));
            if (t.child.exit().isDone()) {
                continue; // gone before the broadcast: nothing to tell it; reap collects it at once
            }
            ShutdownDelivery d = t.child.deliverShutdown(epoch);
            job.journal.append(new ShutdownPublished(MonotonicClock.nanos(), job.pid(), job.poolId(), job.closeId,
                    t.child.group(), t.child.index(), t.child.pid(), d.channel(), epoch, d.casWon(), d.observedWord()));
        }
    }
}
