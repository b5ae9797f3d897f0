package dev.vigil.close;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.Sequence;

/**
 * One stage of one lane of the close pipeline. Each lane is its own chain of stages over the shared
 * ring and only handles the closes assigned to it, so a long reap in one lane never holds up another.
 */
abstract class CloseStage implements EventHandler<CloseStage.Slot> {
    /** A ring entry: the close assigned to it. */
    static final class Slot {
        CloseJob job;
    }

    private final int lane;
    private StageWaitStrategy waitStrategy;
    private Sequence ownSequence;

    CloseStage(int lane) {
        this.lane = lane;
    }

    /** Called once before the pipeline starts: the strategy to signal after each entry. */
    final CloseStage signalling(StageWaitStrategy strategy) {
        this.waitStrategy = strategy;
        return this;
    }

    @Override
    public final void setSequenceCallback(Sequence sequenceCallback) {
        this.ownSequence = sequenceCallback;
    }

    @Override
    public final void onEvent(Slot slot, long sequence, boolean endOfBatch) {
        try {
            handle(slot.job);
        } finally {
            // Publish progress now (not at the end of the batch) and wake the stages waiting on it.
            ownSequence.set(sequence);
            waitStrategy.signalAllWhenBlocking();
        }
    }

    private void handle(CloseJob job) {
        if (job == null || job.lane != lane) {
            return;
        }
        if (job.failure != null && !runsAfterFailure()) {
            return;
        }
        try {
            run(job);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.failure = e;
        } catch (Throwable t) {
            job.failure = t;
        }
    }

    /** Only the report stage runs after an earlier stage failed: it must still answer the caller. */
    boolean runsAfterFailure() {
        return false;
    }

    abstract void run(CloseJob job) throws Exception;
}
