package dev.vigil.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class OwnerRecordTest {
    @TempDir
    Path tmp;

    /**
     * The record is written field by field (not by an ObjectMapper: OwnerRecord#write says why) and read back by the
     * ObjectMapper through its components: every component is written under its own name, text escaped, so what a
     * crashed owner wrote is what the next start recovers from.
     */
    @Test
    void whatIsWrittenReadsBackAsTheSameRecordWithEveryComponentByName() throws Exception {
        OwnerRecord mine = new OwnerRecord(4_194_303, Long.MAX_VALUE, "cgroup", "/sys/fs/cgroup/vigil/o1 \"räck\"\\x",
                "/tmp/j-pgroups\nsecond line");
        Path file = tmp.resolve("j-owner.json");
        mine.write(file);
        assertEquals(mine, OwnerRecord.read(file));
        String json = Files.readString(file);
        List<String> names = Arrays.stream(OwnerRecord.class.getRecordComponents()).map(c -> c.getName()).toList();
        for (String name : names) {
            assertEquals(1, json.split("\"" + name + "\":", -1).length - 1, name + " in " + json);
        }
        assertEquals(names.size(), json.split("\":", -1).length - 1, json);
    }
}
