package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.vigil.replay.internal.JournalScan;

/** The fold keeps state for live pools and open closes only: it does not grow with the journal. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StreamingFoldTest {
    @TempDir
    Path tmp;

    @Test
    void stateStaysBoundedOverManyPoolsAndCloses() {
        long[] written = ReplayBenchmark.generate(tmp, 200_000);
        int[] maxPools = {0};
        int[] maxOpen = {0};
        long[] closes = {0};
        CloseReconstruction fold = new CloseReconstruction(new CloseReconstruction.Listener() {
            @Override
            public void closeRebuilt(RebuiltClose close) {
                closes[0]++;
                assertEquals(java.util.List.of(), close.outcome().differencesFrom(close.liveReport()));
            }
        }, 0);
        JournalScan.readAll(tmp, CloseReconstruction.KINDS, (i, e) -> {
            fold.accept(i, e);
            maxPools[0] = Math.max(maxPools[0], fold.poolsTracked());
            maxOpen[0] = Math.max(maxOpen[0], fold.closesInProgress());
            return true;
        });
        fold.finish();
        assertEquals(written[1], closes[0], "every close rebuilt");
        assertTrue(closes[0] > 250, "closes=" + closes[0]);
        assertTrue(maxPools[0] <= 2, "pools held at once: " + maxPools[0] + " (the generator runs two at a time)");
        assertTrue(maxOpen[0] <= 2, "closes held at once: " + maxOpen[0]);
        assertEquals(0, fold.poolsTracked(), "every pool closed cleanly is forgotten");
    }
}
