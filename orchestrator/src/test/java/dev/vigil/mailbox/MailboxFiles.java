package dev.vigil.mailbox;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Plain mapped files of back-to-back mailboxes for in-process tests (no Chronicle Map involved). */
final class MailboxFiles {
    private MailboxFiles() {
    }

    /** Maps {@code count} mailbox slots of a fresh file; slot i starts at i * MAILBOX_LENGTH. */
    static MappedByteBuffer mapSlots(Path file, int count) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) count * MailboxDescriptor.DEFAULT_MAILBOX_LENGTH);
        }
    }

    static MappedMailbox slot(MappedByteBuffer file, int index) {
        int offset = index * MailboxDescriptor.DEFAULT_MAILBOX_LENGTH;
        return MappedMailbox.over(file.slice(offset, MailboxDescriptor.DEFAULT_MAILBOX_LENGTH), offset);
    }

    static MailboxHandle formatted(Path path, MappedByteBuffer file, int index, ProtocolMode mode) {
        MappedMailbox mailbox = slot(file, index);
        mailbox.format(mode, (int) ProcessHandle.current().pid(), index + 1);
        return MailboxHandle.over(new MailboxId("test", "g", index), path, mailbox);
    }
}
