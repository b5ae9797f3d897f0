package dev.vigil.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The task room a spec is checked against: RLIMIT_NPROC counts this user's tasks, and does not hold root. */
class ProcessRoomTest {
    private static final long NOT_COUNTED = -7;

    @Test
    void theUserProcessLimitIsSetAgainstThisUsersTasksNotTheSystems() {
        // 'nobody' under ulimit -u 400: 343 tasks on the system, 30 of them its own (measured by hand with bin/vigil:
        // the old rule refused 150 children, "room for 57 more tasks")
        assertEquals(370, ProcessRoom.tasksRoom(32768, 192739, 400, 343, 65534, () -> 30));
        // the system's own limits still bind when tighter
        assertEquals(10, ProcessRoom.tasksRoom(353, 192739, 400, 343, 65534, () -> 30));
    }

    @Test
    void rootIsNotHeldToTheUserProcessLimitAndItsTasksAreNotCountedWhenAnotherLimitBinds() {
        assertEquals(32768 - 343, ProcessRoom.tasksRoom(32768, 192739, 150, 343, 0, () -> NOT_COUNTED));
        // default limits: pid_max binds, no /proc scan
        assertEquals(32768 - 343, ProcessRoom.tasksRoom(32768, 192739, 96369, 343, 1000, () -> NOT_COUNTED));
        assertEquals(32768 - 343, ProcessRoom.tasksRoom(32768, 192739, Long.MAX_VALUE, 343, 1000, () -> NOT_COUNTED));
    }

    @Test
    void theRoomOfThisMachineFitsOneChild() {
        assertNull(ProcessRoom.current().whyNotRoomFor(1, 0), ProcessRoom.current().limits());
    }
}
