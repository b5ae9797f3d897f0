package dev.vigil.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import net.openhft.chronicle.core.time.SetTimeProvider;

/**
 * Gives a journal cycle files of earlier days (one per day, the roll cycle's), for tests that need a journal of
 * several files before a real run appends today's: a missing middle file is then damage between two readable ones.
 */
public final class EarlierDays {
    private EarlierDays() {
    }

    /**
     * Appends {@code perDay} ContainmentChosen events to the journal in {@code dir} on each of the {@code days} days
     * before today (UTC), oldest first, on a clock set to noon of that day; returns how many were appended.
     */
    public static int write(Path dir, int days, int perDay) {
        Instant today = Instant.now().truncatedTo(ChronoUnit.DAYS);
        SetTimeProvider clock = new SetTimeProvider(today.minus(days, ChronoUnit.DAYS).plus(12, ChronoUnit.HOURS));
        int n = 0;
        try (JournalWriter w = JournalWriter.open(dir, 1024, Duration.ofSeconds(5), clock)) {
            for (int day = days; day >= 1; day--) {
                clock.currentTimeMillis(today.minus(day, ChronoUnit.DAYS).plus(12, ChronoUnit.HOURS).toEpochMilli());
                for (int i = 0; i < perDay; i++) {
                    w.append(new ContainmentChosen(MonotonicClock.nanos(), 1, "", 0, "cgroup", "/day-" + day, "earlier day"));
                    n++;
                }
                w.flush();
            }
        }
        return n;
    }
}
