"""ctypes bindings of the C child runtime's flat surface (native/include/vigil/child_ffi.h, libvigil-child.so).

Every protocol step (atomic loads, release stores, compare-and-swap, fetch-and-add, ring records, the idle
back-off) runs in the C runtime; this module only declares the functions and finds the library.
"""
import ctypes
import os

LIBRARY_ENV = "VIGIL_CHILD_LIBRARY"
LIBRARY_NAME = "libvigil-child.so"

INIT_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
COMMAND_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64,
                              ctypes.POINTER(ctypes.c_int64))
SHUTDOWN_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)


class LibraryNotFound(RuntimeError):
    """No libvigil-child.so where the child looked (the message lists the places)."""


def library_candidates(env=None):
    """Where the library is looked for, in order: $VIGIL_CHILD_LIBRARY, the installed package, the source tree."""
    env = os.environ if env is None else env
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if env.get(LIBRARY_ENV):
        candidates.append(env[LIBRARY_ENV])
    candidates.append(os.path.join(here, LIBRARY_NAME))
    candidates.append(os.path.normpath(os.path.join(here, "..", "..", "native", "build", LIBRARY_NAME)))
    return candidates


_library = None


def library():
    """The loaded C runtime (loaded once per process)."""
    global _library
    if _library is None:
        candidates = library_candidates()
        path = next((c for c in candidates if os.path.isfile(c)), None)
        if path is None:
            raise LibraryNotFound("cannot find the C child runtime %s: looked at %s (build native/ with make, or set %s)"
                                  % (LIBRARY_NAME, ", ".join(candidates), LIBRARY_ENV))
        _library = _declare(ctypes.CDLL(path))
    return _library


def _declare(lib):
    child = ctypes.c_void_p
    lib.vigil_ffi_attach_env.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.vigil_ffi_attach_env.restype = child
    lib.vigil_ffi_attach.argtypes = [ctypes.c_char_p, ctypes.c_uint64, ctypes.c_int, ctypes.c_int32, ctypes.c_char_p,
                                     ctypes.c_size_t]
    lib.vigil_ffi_attach.restype = child
    lib.vigil_ffi_serve.argtypes = [child, ctypes.c_void_p, INIT_FN, COMMAND_FN, COMMAND_FN, SHUTDOWN_FN, ctypes.c_int]
    lib.vigil_ffi_serve.restype = ctypes.c_int
    lib.vigil_ffi_set_error_text.argtypes = [child, ctypes.c_char_p, ctypes.c_size_t]
    lib.vigil_ffi_set_error_text.restype = None
    lib.vigil_ffi_set_honours_shutdown.argtypes = [child, ctypes.c_int]
    lib.vigil_ffi_set_honours_shutdown.restype = None
    lib.vigil_ffi_protocol_mode.argtypes = [child]
    lib.vigil_ffi_protocol_mode.restype = ctypes.c_int
    lib.vigil_ffi_parent_pid.argtypes = [child]
    lib.vigil_ffi_parent_pid.restype = ctypes.c_int32
    lib.vigil_ffi_free.argtypes = [child]
    lib.vigil_ffi_free.restype = None
    lib.vigil_child_shutdown_requested.argtypes = [child]
    lib.vigil_child_shutdown_requested.restype = ctypes.c_int
    lib.vigil_child_beat.argtypes = [child]
    lib.vigil_child_beat.restype = None
    lib.vigil_child_gate.argtypes = [child]
    lib.vigil_child_gate.restype = ctypes.c_uint64
    lib.vigil_now_nanos.argtypes = []
    lib.vigil_now_nanos.restype = ctypes.c_uint64
    return lib
