package dev.vigil.close;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.TimeoutException;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.EventHandlerGroup;
import com.lmax.disruptor.dsl.ProducerType;

import dev.vigil.close.decision.CloseReport;

/**
 * Runs closes: one Disruptor ring shared by every pool of an orchestrator, with the stages
 * fence > broadcast > reap > diagnose > escalate > release > report as event handlers in sequence.
 *
 * <pre>
 *                 +-- lane 0: fence0 > broadcast0 > reap0 > diagnose0 > escalate0 > release0 > report0
 *   submit -> ring+-- lane 1: fence1 > broadcast1 > ...                                    > report1
 *                 +-- lane n-1 ...
 * </pre>
 *
 * A close takes a free lane (at most {@code maxParallelCloses} run at once; further submitters wait
 * for one) and each lane's handlers only act on its own closes, so a close stuck in its reap stage
 * never holds up a close in another lane. Threads are daemons and sleep while they wait, including
 * while an earlier stage of their lane works ({@link StageWaitStrategy}).
 */
public final class ClosePipeline implements AutoCloseable {
    private static final long PID_BITS = ProcessHandle.current().pid() << 32;
    private static final AtomicLong CLOSE_COUNTER = new AtomicLong();
    private static final AtomicInteger PIPELINE_IDS = new AtomicInteger();

    private final PoolJournal journal;
    private final int lanes;
    private final Disruptor<CloseStage.Slot> disruptor;
    private final RingBuffer<CloseStage.Slot> ring;
    private final Semaphore permits;
    private final ConcurrentLinkedQueue<Integer> freeLanes = new ConcurrentLinkedQueue<>();
    private final AtomicInteger running = new AtomicInteger();
    private volatile boolean closed;

    public ClosePipeline(PoolJournal journal, int maxParallelCloses) {
        if (maxParallelCloses < 1) {
            throw new IllegalArgumentException("maxParallelCloses=" + maxParallelCloses + " must be >= 1");
        }
        this.journal = journal;
        this.lanes = maxParallelCloses;
        CloseReport.warmUp();
        this.permits = new Semaphore(maxParallelCloses, true);
        int id = PIPELINE_IDS.incrementAndGet();
        AtomicInteger threadIds = new AtomicInteger();
        StageWaitStrategy waits = new StageWaitStrategy();
        this.disruptor = new Disruptor<>(CloseStage.Slot::new, ringSize(maxParallelCloses), r -> {
            Thread t = new Thread(r, "vigil-close-" + id + "-" + threadIds.getAndIncrement());
            t.setDaemon(true);
            return t;
        }, ProducerType.MULTI, waits);
        for (int lane = 0; lane < lanes; lane++) {
            freeLanes.add(lane);
            CloseStage[] stages = {new FenceStage(lane, running), new BroadcastStage(lane), new ReapStage(lane),
                new DiagnoseStage(lane), new EscalateStage(lane), new ReleaseStage(lane),
                new ReportStage(lane, running, this::freeLane)};
            EventHandlerGroup<CloseStage.Slot> chain = disruptor.handleEventsWith(stages[0].signalling(waits));
            for (int i = 1; i < stages.length; i++) {
                chain = chain.then(stages[i - 1].then(stages[i]).signalling(waits));
            }
        }
        this.ring = disruptor.start();
    }

    private static int ringSize(int lanes) {
        return Integer.highestOneBit(Math.max(16, lanes * 4) - 1) << 1;
    }

    /** A close id unique across processes sharing a journal: (orchestrator pid << 32) | per-process counter. */
    public static long nextCloseId() {
        return PID_BITS | CLOSE_COUNTER.incrementAndGet();
    }

    public PoolJournal journal() {
        return journal;
    }

    /** Closes currently between their fence and report stages. */
    public int runningCloses() {
        return running.get();
    }

    public int maxParallelCloses() {
        return lanes;
    }

    /**
     * Queues a close of {@code target} under {@code closeId}; waits (interruptibly) while
     * {@link #maxParallelCloses()} closes are running. The future completes with the report after it
     * is journaled; it completes exceptionally only if the pipeline itself failed.
     */
    public CompletableFuture<CloseReport> submit(CloseTarget target, long closeId) throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("close pipeline is shut down; pool=" + target.poolId() + " closeId=" + closeId);
        }
        permits.acquire();
        Integer lane = freeLanes.poll();
        if (lane == null) {
            permits.release();
            throw new IllegalStateException("close pipeline lane accounting broken: permit without a free lane");
        }
        CloseJob job = new CloseJob(target, closeId, journal, lane);
        long seq = ring.next();
        ring.get(seq).job = job;
        ring.publish(seq);
        return job.result;
    }

    private void freeLane(int lane) {
        freeLanes.add(lane);
        permits.release();
    }

    /** Stops the stage threads after the closes already submitted finish (bounded); does not close any pool. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            disruptor.shutdown(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            disruptor.halt();
        }
    }
}
