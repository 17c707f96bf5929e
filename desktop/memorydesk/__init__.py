"""Memory Desk: review and repair the memory of AI agents."""

__version__ = "0.1.0"
SOURCE_VERSION = f"memorydesk {__version__}"
