"""python3 -m vigil_child HANDLER: a pool child running the handler class HANDLER (module:Class).

The handler may also come from $VIGIL_CHILD_HANDLER; the mailbox from the VIGIL_* handoff variables.
Exit statuses: 0 shutdown, 2 attach failed, 3 init failed, 4 parent gone (docs/MAILBOX.md).
"""
import os
import sys

from .runtime import EXIT_ATTACH_FAILED, run

HANDLER_ENV = "VIGIL_CHILD_HANDLER"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    handler = argv[0] if argv else os.environ.get(HANDLER_ENV, "")
    if not handler.strip():
        print("ERR: no handler: pass module:Class or set " + HANDLER_ENV, file=sys.stderr)
        return EXIT_ATTACH_FAILED
    status = run(handler)
    sys.stdout.flush()
    sys.stderr.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
