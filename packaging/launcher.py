"""Entry point of the one-folder app (PyInstaller): the ``memory-desk`` command.

The desk starts some work in a process of its own as ``<python> -m memorydesk.…`` (the
canary's batches); frozen, the app's executable stands in for Python there, so such a
call runs that module, as Python's ``-m`` would.
"""

import sys

if len(sys.argv) >= 3 and sys.argv[1] == "-m" and sys.argv[2].startswith("memorydesk."):
    import runpy

    module, sys.argv = sys.argv[2], [sys.argv[0], *sys.argv[3:]]
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    raise SystemExit(0)

from memorydesk.cli import main  # noqa: E402

raise SystemExit(main())
