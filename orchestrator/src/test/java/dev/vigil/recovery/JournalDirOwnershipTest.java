package dev.vigil.recovery;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JournalDirOwnershipTest {
    /**
     * sysfs refuses a new file even to root (EACCES): the one line says why, not the lock file's name a second time
     * (before: "lock file=/sys/kernel-owner.lock cannot be opened: /sys/kernel-owner.lock", from {@code bin/vigil run}
     * with {@code "journalDir": "/sys/kernel"}).
     */
    @Test
    void aLockFileThatCannotBeCreatedIsRefusedSayingWhy() {
        Path journal = Path.of("/sys/kernel");
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> JournalDirOwnership.acquire(journal).close());
        String lockFile = JournalDirOwnership.sibling(journal, dev.vigil.journal.JournalOwner.LOCK_SUFFIX).toString();
        assertTrue(refused.getMessage().contains("lock file=" + lockFile + " cannot be opened: "), refused.getMessage());
        assertFalse(refused.getMessage().endsWith(lockFile), refused.getMessage());
        assertTrue(refused.getMessage().matches(".*(permission denied|Read-only file system)$"), refused.getMessage());
    }
}
