package dev.vigil.spawn;

/** The contract with the waitpid(pid, WNOHANG) fallback. */
class WaitpidBackoffReaperTest extends ReaperContractTest {
    @Override
    ReapMode mode() {
        return ReapMode.WAITPID_BACKOFF;
    }
}
