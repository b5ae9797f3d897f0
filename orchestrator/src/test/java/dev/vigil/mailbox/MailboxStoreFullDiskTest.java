package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import dev.vigil.journal.SmallTmpfs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The mailbox map file on a real file system that is full (a small tmpfs, mounted as root): a store that cannot be
 * reopened there says so in one exception and leaves nothing behind: no map left mapped (Chronicle's cleaner then
 * logged "is not closed manually" on stderr, a second line after the run's ERR), no empty owner marker that makes the
 * next open a crash recovery.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MailboxStoreFullDiskTest {
    @RegisterExtension
    final SmallTmpfs tmpfs = new SmallTmpfs("vigil-mailbox-test", "32m");

    @Test
    void aStoreThatCannotReopenOnAFullDiskUnmapsTheMapAndLeavesNoOwnerMarker() throws Exception {
        Path file = tmpfs.path().resolve("mailboxes.map");
        MailboxStore.createOrOpen(file, 16).close(); // the map of an earlier run, closed cleanly
        Path marker = file.resolveSibling(file.getFileName() + ".owner");
        assertFalse(Files.exists(marker));
        tmpfs.fill();

        MailboxException refused = assertThrows(MailboxException.class, () -> MailboxStore.createOrOpen(file, 16));
        assertTrue(refused.getMessage().contains("no space left on " + tmpfs.path()), refused.getMessage());
        assertFalse(Files.readString(Path.of("/proc/self/maps")).contains(file.toString()),
                "the map file is still mapped after the open failed");
        assertFalse(Files.exists(marker), "an owner marker this open failed to write is left: " + marker);

        tmpfs.unfill();
        try (MailboxStore again = MailboxStore.createOrOpen(file, 16)) {
            assertEquals(java.util.List.of(), again.recoveryNotes(), "the next open is not a crash recovery");
        }
    }

    /**
     * A new map that does not fit says how much it takes and how much is free (probe: bin/vigil run on a 8 MiB tmpfs
     * said only "no space left on /tmp/field/tiny (tmpfs)"), and leaves no file behind.
     */
    @Test
    void aNewMapThatDoesNotFitSaysHowMuchItTakesAndHowMuchIsFree() throws Exception {
        Path reserve = Files.write(tmpfs.path().resolve("reserve"), new byte[4 << 20]);
        tmpfs.fill();
        Files.delete(reserve); // 4 MiB free: room for the map's header, not for its 14 MB
        Path file = tmpfs.path().resolve("new.map");
        MailboxException refused = assertThrows(MailboxException.class, () -> MailboxStore.createOrOpen(file, 256));
        assertTrue(refused.getMessage().matches("(?s).*no space left on " + java.util.regex.Pattern.quote(
                tmpfs.path().toString()) + ".*: a map of 256 mailboxes takes [1-9][0-9]{6,} bytes, [0-9]{6,} bytes free"
                + " there"), refused.getMessage());
        assertFalse(Files.exists(file), "left: " + file);
    }

    @Test
    void aMapClosedCleanlyStillOpensWhenTheDiskHasNoRoomToCopyItForItsCheck() throws Exception {
        Path file = tmpfs.path().resolve("mailboxes.map");
        MailboxStore.createOrOpen(file, 16).close(); // the map of an earlier run, closed cleanly
        // changed since that close (its seal no longer matches), so checked in full: MailboxStore#sealFile
        Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(0));
        long mapBytes = Files.size(file);
        Path reserve = Files.write(tmpfs.path().resolve("reserve"), new byte[64 * 1024]);
        tmpfs.fill();
        Files.delete(reserve); // room for the owner marker, not for a copy of the map
        assertTrue(Files.getFileStore(tmpfs.path()).getUsableSpace() < mapBytes, "the disk still has room for a copy");

        try (MailboxStore opened = MailboxStore.createOrOpen(file, 16)) {
            assertTrue(opened.recoveryNotes().stream().anyMatch(n -> n.startsWith("segments not checked")),
                    "no note that the map's segments went unchecked: " + opened.recoveryNotes());
        }
        assertFalse(Files.exists(file.resolveSibling(file.getFileName() + ".check")), "the partial copy is left");
    }

    /**
     * A map unchanged since its clean close (MailboxStore#sealFile) is not copied for its segment check: here no copy
     * fits on the disk, and the open says nothing of an unchecked map, since it needs none. Without the seal's match the
     * open tries the copy and notes 'segments not checked'.
     */
    @Test
    void aMapUnchangedSinceItsCleanCloseOpensWithoutTheCopyOfItsCheck() throws Exception {
        Path file = tmpfs.path().resolve("mailboxes.map");
        MailboxStore.createOrOpen(file, 16).close();
        try (MailboxStore between = MailboxStore.createOrOpen(file, 16)) { // a run in between: closed and sealed again
            between.allocate(new MailboxId("p", "g", 0), ProtocolMode.STICKY);
            between.release(new MailboxId("p", "g", 0));
        }
        Path reserve = Files.write(tmpfs.path().resolve("reserve"), new byte[64 * 1024]);
        tmpfs.fill();
        Files.delete(reserve);
        assertTrue(Files.getFileStore(tmpfs.path()).getUsableSpace() < Files.size(file), "the disk still has room for a copy");

        try (MailboxStore opened = MailboxStore.createOrOpen(file, 16)) {
            assertEquals(java.util.List.of(), opened.recoveryNotes(), "the unchanged map was checked in full");
        }
    }
}
