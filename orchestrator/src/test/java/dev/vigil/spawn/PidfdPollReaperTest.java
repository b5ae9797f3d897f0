package dev.vigil.spawn;

/** The contract with pidfds and poll(2): the default mode. */
class PidfdPollReaperTest extends ReaperContractTest {
    @Override
    ReapMode mode() {
        return ReapMode.PIDFD_POLL;
    }
}
