package dev.vigil.close;

import com.lmax.disruptor.EventHandler;

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

    CloseStage(int lane) {
        this.lane = lane;
    }

    @Override
    public final void onEvent(Slot slot, long sequence, boolean endOfBatch) {
        CloseJob job = slot.job;
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
