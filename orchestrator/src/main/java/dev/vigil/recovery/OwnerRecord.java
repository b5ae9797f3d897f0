package dev.vigil.recovery;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What the owner of a journal directory left for whoever comes next ({@code <journal dir>-owner.json}):
 * who it was (pid and start time, against pid reuse) and where its processes are (its cgroup, or the file
 * listing its process groups). Present while it runs; removed by a close that leaves nothing behind; found
 * at open, it means the previous owner died or kept survivors.
 */
public record OwnerRecord(int pid, long startTicks, String mode, String cgroupRoot, String processGroupsFile) {
    private static final ObjectMapper JSON = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    static OwnerRecord read(Path file) {
        try {
            return JSON.readValue(Files.readString(file), OwnerRecord.class);
        } catch (IOException e) {
            throw new IllegalStateException("owner record=" + file + " unreadable: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    void write(Path file) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(tmp, JSON.writeValueAsString(this) + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IllegalStateException("owner record=" + file + " cannot be written: " + e.getMessage(), e);
        }
    }
}
