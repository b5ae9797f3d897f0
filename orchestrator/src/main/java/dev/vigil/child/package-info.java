/**
 * The Java child runtime: {@link dev.vigil.child.ChildMain} attaches to the mailbox handed off in VIGIL_*
 * environment variables and runs {@link dev.vigil.child.ChildRuntime}'s serve loop around a
 * {@link dev.vigil.child.ChildHandler}. JDK classes only at run time (no Chronicle, no jnr), so a child
 * JVM starts in about 0.1 s. {@code dev.vigil.child.demo} holds configurable handlers for tests and demos.
 */
package dev.vigil.child;
