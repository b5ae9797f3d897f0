package dev.vigil.journal;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an event field added after its kind's first layout: bodies of an older layout version do
 * not carry it, and a reader fills in {@link #absent()} instead. A kind's layout version is the
 * highest {@code AddedIn} among its fields (1 without any). See docs/JOURNAL.md, "Adding a field".
 *
 * <pre>
 * public record ChildAcked(long timeNanos, ..., long ackNanos,
 *         &#64;AddedIn(value = 2, absent = "-1") long ackWordNanos) implements JournalEvent { ... }
 * </pre>
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface AddedIn {
    /** The kind's layout version that added this field (2 or more). */
    int value();

    /**
     * What a reader of an older body gets for this field, parsed as the field's type; empty means
     * 0, false or the empty string.
     */
    String absent() default "";
}
