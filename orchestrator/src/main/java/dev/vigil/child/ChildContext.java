package dev.vigil.child;

import dev.vigil.mailbox.MailboxHandoff;
import dev.vigil.mailbox.MappedMailbox;

/** What a handler may know about the child it runs in. */
public record ChildContext(MailboxHandoff handoff, MappedMailbox mailbox, int pid) {
}
