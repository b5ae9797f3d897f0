package dev.vigil.mailbox;

import java.nio.file.Path;

/** Run in a separate JVM by {@link MailboxStoreCrashTest}: allocates, writes words, says READY, then waits to be SIGKILLed. */
public final class StoreCrashWriterMain {
    private StoreCrashWriterMain() {
    }

    public static void main(String[] args) throws Exception {
        MailboxStore store = MailboxStore.createOrOpen(Path.of(args[0]), 64);
        int count = Integer.parseInt(args[1]);
        for (int i = 0; i < count; i++) {
            MailboxHandle handle = store.allocate(new MailboxId("crash", "g", i), i % 2 == 0 ? ProtocolMode.STICKY : ProtocolMode.LEGACY);
            handle.setGate(1000 + i);
            handle.mailbox().beat();
            handle.publishShutdown(500 + i);
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
