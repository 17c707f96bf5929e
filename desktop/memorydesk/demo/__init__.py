"""The demo workspace: a realistic team's memory, written through the memory service."""
