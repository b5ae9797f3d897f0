"""Vigil's Python child runtime and pytest support.

A pool child in Python: subclass Handler, start it with `python3 -m vigil_child module:Class` (the pool
spec's `python` kind does this). The protocol runs in the C child runtime (libvigil-child.so) through ctypes,
so a Python child speaks it with exactly the C runtime's atomics. See python/README.md.
"""
from .runtime import (AttachError, Cancellation, ChildCommandError, ChildContext, Handler, EXIT_ATTACH_FAILED,
                      EXIT_INIT_FAILED, EXIT_PARENT_GONE, EXIT_SHUTDOWN, ERROR_HANDLER_FAILED, ERROR_UNSUPPORTED)

__all__ = ["AttachError", "Cancellation", "ChildCommandError", "ChildContext", "Handler", "EXIT_ATTACH_FAILED",
           "EXIT_INIT_FAILED", "EXIT_PARENT_GONE", "EXIT_SHUTDOWN", "ERROR_HANDLER_FAILED", "ERROR_UNSUPPORTED"]
