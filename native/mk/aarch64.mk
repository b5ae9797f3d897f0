# The aarch64 build (the field's platform): the same sources and flags (-Werror) cross-compiled with
# Debian's gcc-aarch64-linux-gnu into build-aarch64/, every native test run under qemu-user
# (Debian's qemu-user-static), and the C layout printed by the aarch64 demo child compared with the
# x86-64 one (MailboxLayoutParityTest compares it with the Java descriptor), and the pidfd reaper
# (vigil-reap-reference pidfd: pidfd_open + poll + waitpid) run under qemu-user. Maven runs it at test.
# Without the tools it skips with one line, except under CI=true, where it fails.
AARCH64_CC     ?= aarch64-linux-gnu-gcc
AARCH64_AR     ?= aarch64-linux-gnu-ar
AARCH64_QEMU   ?= qemu-aarch64-static
AARCH64_SYSROOT ?= /usr/aarch64-linux-gnu
AARCH64_BUILD  := build-aarch64
# LeakSanitizer stops the world with ptrace, which qemu-user does not emulate; leaks are checked natively.
AARCH64_ENV    := QEMU_LD_PREFIX=$(AARCH64_SYSROOT) ASAN_OPTIONS=detect_leaks=0
AARCH64_MAKE   := $(AARCH64_ENV) $(MAKE) --no-print-directory BUILD=$(AARCH64_BUILD) CC=$(AARCH64_CC) AR=$(AARCH64_AR) RUN=$(AARCH64_QEMU)

.PHONY: test-aarch64
test-aarch64: $(BUILD)/vigil-demo-child
	@missing=""; for tool in $(AARCH64_CC) $(AARCH64_AR) $(AARCH64_QEMU); do \
	  command -v $$tool >/dev/null 2>&1 || missing="$$missing $$tool"; done; \
	[ -d $(AARCH64_SYSROOT)/lib ] || missing="$$missing $(AARCH64_SYSROOT)/lib"; \
	if [ -n "$$missing" ]; then \
	  if [ "$${CI:-}" = true ]; then \
	    echo "aarch64: FAILED: cross toolchain missing:$$missing (apt-get install gcc-aarch64-linux-gnu qemu-user-static)"; exit 1; \
	  fi; \
	  echo "aarch64: SKIPPED: cross toolchain missing:$$missing (apt-get install gcc-aarch64-linux-gnu qemu-user-static)"; exit 0; \
	fi; \
	set -e; $(AARCH64_MAKE) test; \
	$(AARCH64_ENV) $(AARCH64_QEMU) $(AARCH64_BUILD)/vigil-demo-child --print-layout > $(AARCH64_BUILD)/layout.txt; \
	./$(BUILD)/vigil-demo-child --print-layout > $(BUILD)/layout.txt; \
	if ! diff -u $(BUILD)/layout.txt $(AARCH64_BUILD)/layout.txt; then \
	  echo "aarch64: FAILED: the aarch64 layout differs from the x86-64 one (diff above: $(BUILD)/layout.txt vs $(AARCH64_BUILD)/layout.txt)"; exit 1; \
	fi; \
	mkdir -p $(AARCH64_BUILD)/stamps; \
	$(AARCH64_ENV) $(AARCH64_QEMU) $(AARCH64_BUILD)/vigil-reap-reference pidfd ./$(BUILD)/vigil-exit-stamp $(AARCH64_BUILD)/stamps 4 20 1000 > $(AARCH64_BUILD)/pidfd-reap.txt \
	  || { echo "aarch64: FAILED: pidfd_open + poll reaping under $(AARCH64_QEMU) (vigil-reap-reference pidfd)"; exit 1; }; \
	[ "$$(grep -c '^latency_ns' $(AARCH64_BUILD)/pidfd-reap.txt)" -eq 4 ] \
	  || { echo "aarch64: FAILED: vigil-reap-reference pidfd reaped fewer than 4 children: $$(cat $(AARCH64_BUILD)/pidfd-reap.txt)"; exit 1; }; \
	[ "$$(od -An -tu2 -j18 -N2 $(AARCH64_BUILD)/vigil-demo-child | tr -d " ")" = 183 ] \
	  || { echo "aarch64: FAILED: $(AARCH64_BUILD)/vigil-demo-child is not an aarch64 ELF (e_machine != 183)"; exit 1; }; \
	echo "aarch64: ok: aarch64 ELF programs built with -Werror, tests passed under $(AARCH64_QEMU), layout equal to x86-64 ($$(wc -l < $(AARCH64_BUILD)/layout.txt) constants), pidfd_open + poll reaped 4 children"
