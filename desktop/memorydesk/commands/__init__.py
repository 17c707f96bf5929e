"""One module per ``memory-desk`` subcommand; see ``memorydesk.cli``."""
