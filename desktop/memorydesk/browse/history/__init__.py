"""Memory over time: the history of changes, its exports, memory as of a time, two files compared."""
