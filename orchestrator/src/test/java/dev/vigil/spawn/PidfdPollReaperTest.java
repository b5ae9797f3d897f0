package dev.vigil.spawn;

/** The contract with pidfds in one epoll set: the default mode. */
class PidfdPollReaperTest extends ReaperContractTest {
    @Override
    ReapMode mode() {
        return ReapMode.PIDFD_POLL;
    }
}
