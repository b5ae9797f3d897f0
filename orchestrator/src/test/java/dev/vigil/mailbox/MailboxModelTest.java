package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * native/model/mailbox.pml under spin (Debian package {@code spin}, installed by .ci/run): sticky verifies
 * (every interleaving ends with the child exited after shutdown, nothing blocked), legacy yields a
 * counterexample (the child blocked forever with the shutdown published). Both outcomes asserted.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class MailboxModelTest {
    static final Pattern ERRORS = Pattern.compile("errors: (\\d+)");

    @TempDir
    Path dir;

    @Test
    void stickyModeVerifiesAndLegacyModeHasALostShutdownCounterexample() throws Exception {
        Path model = Path.of(System.getProperty("vigil.root", "..")).resolve("native/model/mailbox.pml");
        assertTrue(Files.exists(model), "model missing: " + model);

        String sticky = verify(model, "STICKY");
        assertEquals(0, errors(sticky), sticky);

        String legacy = verify(model, "LEGACY");
        assertTrue(errors(legacy) > 0, legacy);
        assertTrue(legacy.contains("invalid end state"), legacy);
        String trail = run(dir.resolve("LEGACY"), false, "spin", "-t", "-p", "-DLEGACY", "mailbox.pml");
        assertTrue(trail.contains("published = 1"), "the counterexample publishes shutdown: " + trail);
        assertTrue(trail.contains("childExited = 0"), "and the child never exits: " + trail);
        System.out.println("spin: sticky " + summary(sticky) + "; legacy " + summary(legacy));
    }

    @Test
    void theDoorbellLosesNoWakeUpAndWithoutTheReCheckSpinFindsTheLostWakeUp() throws Exception {
        Path model = Path.of(System.getProperty("vigil.root", "..")).resolve("native/model/mailbox.pml");
        String doorbell = verify(model, "STICKY", "DOORBELL");
        assertEquals(0, errors(doorbell), "flag, re-check, futex wait on the ring count: no lost wake-up: " + doorbell);
        String noRecheck = verify(model, "STICKY", "DOORBELL", "NO_RECHECK");
        assertTrue(errors(noRecheck) > 0 && noRecheck.contains("invalid end state"), "without the re-check a wake-up is lost: " + noRecheck);
        String trail = run(dir.resolve("STICKY-DOORBELL-NO_RECHECK"), false, "spin", "-t", "-p", "-DSTICKY", "-DDOORBELL", "-DNO_RECHECK", "mailbox.pml");
        assertTrue(trail.contains("sleeping = 1") && trail.contains("childExited = 0"), "the child sleeps forever: " + trail);
        System.out.println("spin doorbell: " + summary(doorbell) + "; without the re-check " + summary(noRecheck));
    }

    @Test
    void theFlowControlledRingLosesNothingWhileTheDrainerLivesAndCountsEveryLossExactlyWhenItStops() throws Exception {
        Path model = Path.of(System.getProperty("vigil.root", "..")).resolve("native/model/mailbox.pml");
        String live = verify(model, "RING");
        assertEquals(0, errors(live), live);
        String stopped = verify(model, "RING", "DRAINER_STOPS");
        assertEquals(0, errors(stopped), "journaled + counted lost == written, in every interleaving: " + stopped);
        String stoppedLoses = verify(model, "RING", "DRAINER_STOPS", "EXPECT_NO_LOSS");
        assertTrue(errors(stoppedLoses) > 0 && stoppedLoses.contains("assertion violated (lost==0)"),
                "a stopped drainer does make writers lap (the exactness check is not vacuous): " + stoppedLoses);
        String noFlowControl = verify(model, "RING", "NO_FLOW_CONTROL");
        assertTrue(errors(noFlowControl) > 0 && noFlowControl.contains("assertion violated (lost==0)"),
                "without flow control a live drainer loses records: " + noFlowControl);
        System.out.println("spin ring: live " + summary(live) + "; stopped " + summary(stopped) + "; stopped loses "
                + summary(stoppedLoses) + "; no flow control " + summary(noFlowControl));
    }

    private String verify(Path model, String... defines) throws Exception {
        String mode = String.join("-", defines);
        Path work = Files.createDirectories(dir.resolve(mode));
        Files.copy(model, work.resolve("mailbox.pml"));
        List<String> spin = new ArrayList<>(List.of("spin", "-a"));
        for (String define : defines) {
            spin.add("-D" + define);
        }
        spin.add("mailbox.pml");
        run(work, true, spin.toArray(String[]::new));
        run(work, true, "cc", "-O1", "-DSAFETY", "-o", "pan", "pan.c");
        return run(work, false, "./pan");
    }

    private static int errors(String panOutput) {
        Matcher m = ERRORS.matcher(panOutput);
        assertTrue(m.find(), "no error count in: " + panOutput);
        return Integer.parseInt(m.group(1));
    }

    private static String summary(String panOutput) {
        Matcher m = Pattern.compile("(\\d+) states, stored").matcher(panOutput);
        return "errors=" + errors(panOutput) + " states=" + (m.find() ? m.group(1) : "?");
    }

    /** Runs a tool (spin, cc, pan: not pool children) and returns its output; fails clearly when spin is missing. */
    private static String run(Path work, boolean mustSucceed, String... command) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(command));
        Process process;
        try {
            process = new ProcessBuilder(argv).directory(work.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new AssertionError("cannot run " + argv.get(0) + " (spin comes from the Debian package 'spin', see .ci/run): " + e.getMessage(), e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "timed out: " + argv);
        if (mustSucceed) {
            assertEquals(0, process.exitValue(), argv + ": " + output);
        }
        return output;
    }
}
