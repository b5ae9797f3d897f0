package dev.vigil.contain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What vigil-guardian wrote after its orchestrator died (JSON, one object): whom it watched, when it saw
 * the death (CLOCK_MONOTONIC), the container it killed, what was in it, whether it was empty afterwards
 * and how long that took (-1 when not within its bound).
 */
public record GuardianRecord(int orchestratorPid, long orchestratorStartTicks, int guardianPid, long deathSeenNanos,
        String mode, String container, boolean empty, long emptyAfterNanos, List<Killed> killed) {
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** One process that was in the container when the guardian killed it. */
    public record Killed(int pid, String command) {
    }

    public GuardianRecord {
        killed = killed == null ? List.of() : List.copyOf(killed);
    }

    /** Reads a record file; one line naming the file and what is wrong with it otherwise. */
    public static GuardianRecord read(Path file) {
        try {
            return JSON.readValue(Files.readString(file), GuardianRecord.class);
        } catch (IOException e) {
            throw new ContainmentException("guardian record=" + file + " unreadable: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    /** One line for the journal and the CLI. */
    public String describe() {
        return "guardian pid=" + guardianPid + " saw orchestrator pid=" + orchestratorPid + " die, killed " + killed.size()
                + " process(es) in " + mode + " " + container + (empty ? ", empty after " + emptyAfterNanos / 1_000_000 + " ms"
                : ", NOT EMPTY within its bound");
    }
}
