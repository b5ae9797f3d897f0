# The spawn shim every child starts through (DESIGN section 5), the library that starts it (libvigil-spawn), and the reaping benchmark's C parts:
# vigil-exit-stamp (a child that stamps CLOCK_MONOTONIC right before _exit) and
# vigil-reap-reference (reference reapers: pidfd_open + poll, and a waitpid WNOHANG loop), the close
# benchmark's vigil-close-reference (one close's protocol work over real mailbox children, in C), and the
# start benchmark's baseline vigil-spawn-stamp (a plain posix_spawnp, stamped), and the idle benchmark's
# vigil-wake-reference (a round trip to a sleeping C process through a futex or a pipe: the machine's floor).
PROGRAMS     += $(BUILD)/vigil-spawn-shim $(BUILD)/libvigil-spawn.so $(BUILD)/vigil-exit-stamp $(BUILD)/vigil-reap-reference \
                $(BUILD)/vigil-close-reference $(BUILD)/vigil-spawn-stamp $(BUILD)/vigil-wake-reference
NATIVE_TEST_SCRIPTS += ./src/spawn/shim-test.sh

$(BUILD)/vigil-spawn-shim: src/spawn/vigil-spawn-shim.c src/spawn/shim_protocol.h | $(BUILD)
	$(CC) $(CFLAGS) $(STATIC) -o $@ $<

# vigil_spawn, which the orchestrator starts the shim with (ShimLauncher): posix_spawn without the whole table copy.
$(BUILD)/libvigil-spawn.so: src/spawn/vigil-spawn-lib.c | $(BUILD)
	$(CC) $(CFLAGS) -shared -Wl,-soname,libvigil-spawn.so -o $@ $<

$(BUILD)/vigil-exit-stamp: src/bench/vigil-exit-stamp.c | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/vigil-reap-reference: src/bench/vigil-reap-reference.c src/bench/bench-common.h | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/vigil-close-reference: src/bench/vigil-close-reference.c src/bench/bench-common.h include/vigil/mailbox.h | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/vigil-spawn-stamp: src/bench/vigil-spawn-stamp.c | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/vigil-wake-reference: src/bench/vigil-wake-reference.c src/bench/bench-common.h | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<
