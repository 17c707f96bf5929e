"""Recall-audit runs: one run as the window and the command line start it, the kept runs, two compared."""
