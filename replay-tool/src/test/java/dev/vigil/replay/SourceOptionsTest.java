package dev.vigil.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The source of a command: a journal DIR or --kafka (the fleet module; not on this module's class path). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SourceOptionsTest {
    @TempDir
    Path tmp;

    @Test
    void aCommandWithNeitherDirNorKafkaSaysWhatItNeeds() {
        CliRun run = CliRun.of("closes");
        assertEquals(2, run.exit(), run::toString);
        assertEquals("ERR: a journal DIR or --kafka HOST:PORT --topic T is required", run.err().strip());
    }

    @Test
    void topicAndHostWithoutKafkaAreRefused() throws Exception {
        Scenarios.clean(tmp);
        CliRun run = CliRun.of("audit", tmp.toString(), "--topic", "t");
        assertEquals(2, run.exit(), run::toString);
        assertEquals("ERR: --topic and --host go with --kafka HOST:PORT", run.err().strip());
    }

    @Test
    void dirAndKafkaTogetherAreRefused() throws Exception {
        Scenarios.clean(tmp);
        CliRun run = CliRun.of("stats", tmp.toString(), "--kafka", "127.0.0.1:9", "--topic", "t");
        assertEquals(2, run.exit(), run::toString);
        assertTrue(run.err().startsWith("ERR: give a journal DIR or --kafka, not both"), run::toString);
    }

    @Test
    void kafkaWithoutTheFleetModuleNamesTheModuleToBuild() {
        CliRun run = CliRun.of("export", "--kafka", "127.0.0.1:9", "--topic", "t");
        assertEquals(2, run.exit(), run::toString);
        assertTrue(run.err().startsWith("ERR: --kafka needs the fleet module on the class path"), run::toString);
        assertEquals(1, run.err().lines().count(), run::toString);
    }

    @Test
    void jsonLinesOfOneHostCarryTheHostAsTheirFirstField() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        try (PrintStream labelled = SourceOptions.hostLabelled(new PrintStream(buf, true, StandardCharsets.UTF_8), "rack \"7\"")) {
            labelled.println("{\"closeId\":1}");
            labelled.println("{}");
            labelled.println("not json");
        }
        assertEquals("{\"host\":\"rack \\\"7\\\"\",\"closeId\":1}\n{\"host\":\"rack \\\"7\\\"\"}\nnot json\n",
                buf.toString(StandardCharsets.UTF_8));
    }
}
