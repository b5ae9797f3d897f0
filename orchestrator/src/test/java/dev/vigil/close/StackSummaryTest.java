package dev.vigil.close;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The one-line summaries of each stack tool's output (the full text is journaled as it came). */
class StackSummaryTest {
    @Test
    void euStackNamesTheThreadsAndTheFirstThreadsTopFrames() {
        String text = "PID 4711 - process\nTID 4711:\n#0  0x00007f1 __GI___clock_nanosleep\n#1  0x00007f2 usleep\n"
                + "#2  0x0000555 gate_wait - /x/vigil-demo-child\n#3  0x0000556 on_control\n#4  0x0000557 main\n"
                + "TID 4712:\n#0  0x00007f1 read\n";
        assertEquals("2 thread(s), first: __GI___clock_nanosleep < usleep < gate_wait < on_control",
                StackCapture.summarizeNative(text));
    }

    @Test
    void gdbFramesAreNamedAfterIn() {
        String text = "Thread 1 (Thread 0x7f (LWP 4711) \"demo\"):\n#0  0x00007f1 in nanosleep () from /lib/libc.so.6\n"
                + "#1  0x0000555 in gate_wait (x=1) at demo.c:10\n";
        assertEquals("1 thread(s), first: nanosleep < gate_wait", StackCapture.summarizeNative(text));
    }

    @Test
    void jcmdShowsTheFirstThreadWithAFrameOutsideTheJdk() {
        String text = "4711:\n2026-12-03 06:00:00\nFull thread dump OpenJDK 64-Bit Server VM:\n\n"
                + "\"Reference Handler\" #2 daemon prio=10\n   java.lang.Thread.State: RUNNABLE\n"
                + "\tat java.lang.ref.Reference.waitForReferencePendingList(java.base@17/Native Method)\n\n"
                + "\"main\" #1 prio=5\n   java.lang.Thread.State: TIMED_WAITING\n"
                + "\tat java.lang.Thread.sleep(java.base@17/Native Method)\n"
                + "\tat dev.vigil.child.demo.GateControlHandler.onControl(GateControlHandler.java:20)\n";
        assertEquals("2 thread(s), \"main\": java.lang.Thread.sleep < dev.vigil.child.demo.GateControlHandler.onControl",
                StackCapture.summarizeJava(text));
        assertNull(StackCapture.summarizeJava("4711: Unable to open socket file"), "no thread: the tool failed");
    }

    @Test
    void faulthandlerFramesNameFunctionFileAndLine() {
        String text = "Current thread 0x00007f87 (most recent call first):\n"
                + "  File \"/x/handlers.py\", line 6 in on_control\n  File \"/x/runtime.py\", line 150 in call\n";
        assertEquals("1 thread(s), first: on_control@handlers.py:6 < call@runtime.py:150",
                StackCapture.summarizePython(text));
    }

    @Test
    void aToolThatPrintsNoThreadIsAFailure() {
        assertNull(StackCapture.summarizeNative("eu-stack: dwfl_linux_proc_attach pid 4711: Operation not permitted"));
    }
}
