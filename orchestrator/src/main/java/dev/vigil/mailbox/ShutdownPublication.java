package dev.vigil.mailbox;

/**
 * The result of publishing shutdown to one mailbox. Sticky: {@code won} = this call's CAS 0 -> epoch
 * succeeded, {@code observed} = the shutdown word after the attempt (the epoch, or the one published
 * earlier). Legacy: always won (a plain store), {@code observed} = the state word it overwrote.
 */
public record ShutdownPublication(boolean won, long observed) {
}
