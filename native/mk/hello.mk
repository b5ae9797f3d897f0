# Smallest program: proves the native build runs under Maven with warnings as errors.
PROGRAMS     += $(BUILD)/vigil-hello
NATIVE_TESTS += ./$(BUILD)/vigil-hello

$(BUILD)/vigil-hello: src/hello.c | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<
