/**
 * Demo and test handlers, twins of {@code native/build/vigil-demo-child}: echo, gate-blocked commands, slow
 * finalizers that beat, children that ignore shutdown or exit with a chosen status.
 */
package dev.vigil.child.demo;
