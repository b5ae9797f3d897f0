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
    /** The stage after this one in its lane, or null for the last; woken after every entry. */
    private CloseStage successor;
    /** The thread this stage runs on, known from {@link #onStart()}. */
    private volatile Thread thread;

    CloseStage(int lane) {
        this.lane = lane;
    }

    /** Called once before the pipeline starts: the strategy to signal after each entry. */
    final CloseStage signalling(StageWaitStrategy strategy) {
        this.waitStrategy = strategy;
        return this;
    }

    /** Wires the stage that waits on this one; returns it, so a lane reads as a chain. */
    final CloseStage then(CloseStage next) {
        this.successor = next;
        return next;
    }

    @Override
    public final void onStart() {
        thread = Thread.currentThread();
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
            // Publish progress now (not at the end of the batch) and wake the one stage waiting on it.
            ownSequence.set(sequence);
            if (successor != null) {
                waitStrategy.wake(successor.thread);
            }
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
