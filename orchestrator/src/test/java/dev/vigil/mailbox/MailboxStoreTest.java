package dev.vigil.mailbox;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MailboxStoreTest {
    @TempDir
    Path dir;

    @Test
    void allocatedMailboxesAreAlignedDistinctAndFreshlyFormatted() {
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 64)) {
            Set<Long> offsets = new HashSet<>();
            for (int i = 0; i < 40; i++) {
                MailboxHandle handle = store.allocate(new MailboxId("p1", "g" + (i % 3), i), i % 2 == 0 ? ProtocolMode.STICKY : ProtocolMode.LEGACY);
                assertEquals(0, handle.offset() % MailboxDescriptor.MAILBOX_ALIGNMENT, "offset=" + handle.offset());
                assertTrue(offsets.add(handle.offset()), "duplicate offset=" + handle.offset());
                assertEquals(0L, handle.stateWord());
                assertEquals(0L, handle.shutdownWord());
                handle.mailbox().checkHeader();
                assertEquals(handle.mode(), handle.mailbox().protocolMode());
            }
            for (long a : offsets) {
                for (long b : offsets) {
                    assertTrue(a == b || Math.abs(a - b) >= MailboxDescriptor.DEFAULT_MAILBOX_LENGTH, "overlap a=" + a + " b=" + b);
                }
            }
        }
    }

    @Test
    void aChildMappingOfTheHandedOffOffsetSeesTheParentsWords() {
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 16)) {
            MailboxHandle handle = store.allocate(new MailboxId("p1", "g", 0), ProtocolMode.STICKY);
            MailboxHandoff handoff = MailboxHandoff.fromEnv(handle.handoffEnv(4711));
            assertEquals(4711, handoff.parentPid());
            MappedMailbox child = MappedMailbox.map(handoff.mapFile(), handoff.offset());
            child.checkHeader();
            assertTrue(handle.publishShutdown(42).won());
            assertEquals(42, child.shutdownAcquire());
            assertFalse(handle.publishShutdown(43).won());
            assertEquals(42, handle.publishShutdown(44).observed());
            child.beat();
            assertEquals(1, handle.heartbeat());
        }
    }

    @Test
    void aReleasedMailboxIsGoneAtOnceAndItsRecordLeavesTheMapBeforeTheSameKeyIsAllocatedAgain() {
        try (MailboxStore store = MailboxStore.createOrOpen(dir.resolve("mailboxes.map"), 16)) {
            MailboxId id = new MailboxId("p1", "g", 0);
            MailboxHandle first = store.allocate(id, ProtocolMode.STICKY);
            first.publishShutdown(7);
            assertTrue(store.release(id));
            assertFalse(store.release(id), "released twice");
            assertTrue(store.lookup(id).isEmpty(), "a released mailbox is not looked up from its record");
            assertEquals(java.util.List.of(), store.ids());
            assertEquals(1, store.releasedNotRemoved());
            // the pool's next cycle: the same key, a fresh record (the old one removed first)
            MailboxHandle again = store.allocate(id, ProtocolMode.STICKY);
            assertEquals(0, store.releasedNotRemoved());
            assertEquals(0L, again.shutdownWord());
            assertEquals(java.util.List.of(id), store.ids());
            assertTrue(store.release(id));
            assertEquals(1, store.removeReleased());
            assertEquals(0, store.removeReleased());
        }
    }

    @Test
    void reopenFindsEveryMailboxWithItsWordsAndReleaseFreesIt() {
        Path file = dir.resolve("mailboxes.map");
        MailboxId id = new MailboxId("p1", "g", 7);
        long offset;
        try (MailboxStore store = MailboxStore.createOrOpen(file, 16)) {
            MailboxHandle handle = store.allocate(id, ProtocolMode.LEGACY);
            offset = handle.offset();
            handle.setGate(99);
            handle.publishShutdown(5);
            assertThrows(MailboxException.class, () -> store.allocate(id, ProtocolMode.STICKY));
        }
        try (MailboxStore store = MailboxStore.createOrOpen(file, 16)) {
            MailboxHandle handle = store.lookup(id).orElseThrow();
            assertEquals(offset, handle.offset());
            assertEquals(ProtocolMode.LEGACY, handle.mode());
            assertEquals(MailboxState.SHUTDOWN, handle.state());
            assertEquals(99, handle.mailbox().gateAcquire());
            assertEquals(java.util.List.of(id), store.ids());
            assertTrue(store.release(id));
            assertTrue(store.lookup(id).isEmpty());
            assertFalse(store.release(id));
        }
    }
}
