"""Entry point of the one-folder app (PyInstaller): the ``memory-desk`` command."""

from memorydesk.cli import main

raise SystemExit(main())
