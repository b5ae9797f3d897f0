# The C child runtime (a static library), the demo child program and the runtime's self test.
CHILD_HEADERS := include/vigil/mailbox.h include/vigil/child.h
PROGRAMS      += $(BUILD)/libvigil-child.a $(BUILD)/vigil-demo-child $(BUILD)/vigil-child-selftest
NATIVE_TESTS  += ./$(BUILD)/vigil-child-selftest

$(BUILD)/vigil_child.o: src/child/vigil_child.c $(CHILD_HEADERS) | $(BUILD)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/libvigil-child.a: $(BUILD)/vigil_child.o
	$(AR) rcs $@ $^

$(BUILD)/vigil-demo-child: src/child/demo_child.c $(BUILD)/libvigil-child.a $(CHILD_HEADERS)
	$(CC) $(CFLAGS) -o $@ src/child/demo_child.c $(BUILD)/libvigil-child.a

$(BUILD)/vigil-child-selftest: src/child/child_selftest.c $(BUILD)/libvigil-child.a $(CHILD_HEADERS)
	$(CC) $(CFLAGS) -o $@ src/child/child_selftest.c $(BUILD)/libvigil-child.a
