package dev.vigil.recovery;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * What the owner of a journal directory left for whoever comes next ({@code <journal dir>-owner.json}):
 * who it was (pid and start time, against pid reuse) and where its processes are (its cgroup, or the file
 * listing its process groups). Present while it runs; removed by a close that leaves nothing behind; found
 * at open, it means the previous owner died or kept survivors.
 */
public record OwnerRecord(int pid, long startTicks, String mode, String cgroupRoot, String processGroupsFile) {
    /** Read only after a crash or a kept pool: the ObjectMapper's set-up is not on the way of every start. */
    static OwnerRecord read(Path file) {
        try {
            return new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                    .readValue(Files.readString(file), OwnerRecord.class);
        } catch (IOException e) {
            throw new IllegalStateException("owner record=" + file + " unreadable: " + e.getMessage().lines().findFirst().orElse(""), e);
        }
    }

    /**
     * Written at every start, on the way to its first child, by the streaming generator: an ObjectMapper serializing
     * this record took 25-65 ms there (its serializer set-up on a cold JVM; bin/vigil-bench start). Its fields are the
     * record's components, by name, as {@link #read} binds them.
     */
    void write(Path file) {
        try {
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            StringWriter json = new StringWriter();
            try (JsonGenerator g = new JsonFactory().createGenerator(json)) {
                g.writeStartObject();
                g.writeNumberField("pid", pid);
                g.writeNumberField("startTicks", startTicks);
                g.writeStringField("mode", mode);
                g.writeStringField("cgroupRoot", cgroupRoot);
                g.writeStringField("processGroupsFile", processGroupsFile);
                g.writeEndObject();
            }
            Files.writeString(tmp, json + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IllegalStateException("owner record=" + file + " cannot be written: " + e.getMessage(), e);
        }
    }
}
