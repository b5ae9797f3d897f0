# The guardian (DESIGN section 11.1): outlives the orchestrator to kill its pools when it dies.
PROGRAMS += $(BUILD)/vigil-guardian

$(BUILD)/vigil-guardian: src/guardian/vigil-guardian.c | $(BUILD)
	$(CC) $(CFLAGS) -o $@ $<
