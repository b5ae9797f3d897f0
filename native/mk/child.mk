# The C child runtime (a static library, and a shared library with the flat FFI surface that the Python
# child loads through ctypes), the demo child program and the runtime's self test.
CHILD_HEADERS := include/vigil/mailbox.h include/vigil/child.h
PROGRAMS      += $(BUILD)/libvigil-child.a $(BUILD)/libvigil-child.so $(BUILD)/vigil-demo-child $(BUILD)/vigil-child-selftest
NATIVE_TESTS  += ./$(BUILD)/vigil-child-selftest

$(BUILD)/vigil_child.o: src/child/vigil_child.c $(CHILD_HEADERS) | $(BUILD)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libvigil-child.a: $(BUILD)/vigil_child.o
	$(AR) rcs $@ $^

$(BUILD)/vigil_child_ffi.o: src/child/vigil_child_ffi.c include/vigil/child_ffi.h $(CHILD_HEADERS) | $(BUILD)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libvigil-child.so: $(BUILD)/vigil_child.o $(BUILD)/vigil_child_ffi.o
	$(CC) $(CFLAGS) -shared -Wl,-soname,libvigil-child.so -o $@ $^

$(BUILD)/vigil-demo-child: src/child/demo_child.c $(BUILD)/libvigil-child.a $(CHILD_HEADERS)
	$(CC) $(CFLAGS) $(STATIC) -o $@ src/child/demo_child.c $(BUILD)/libvigil-child.a

$(BUILD)/vigil-child-selftest: src/child/child_selftest.c $(BUILD)/libvigil-child.a $(CHILD_HEADERS)
	$(CC) $(CFLAGS) -o $@ src/child/child_selftest.c $(BUILD)/libvigil-child.a

# The same self test built with AddressSanitizer + UndefinedBehaviorSanitizer.
ifeq ($(SANITIZE),1)
SANITIZE_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PROGRAMS       += $(BUILD)/vigil-child-selftest-sanitized
NATIVE_TESTS   += ./$(BUILD)/vigil-child-selftest-sanitized

$(BUILD)/vigil-child-selftest-sanitized: src/child/child_selftest.c src/child/vigil_child.c $(CHILD_HEADERS) | $(BUILD)
	$(CC) $(CFLAGS) $(SANITIZE_FLAGS) -o $@ src/child/child_selftest.c src/child/vigil_child.c
endif
