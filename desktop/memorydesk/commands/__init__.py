"""One module per ``memory-desk`` subcommand; see ``memorydesk.cli``."""


def not_yet(name: str):
    """A handler for a subcommand whose issue has not landed yet (exit 2)."""

    def run(_args) -> int:
        import sys

        print(f"memory-desk: '{name}' is not yet available in this build", file=sys.stderr)
        return 2

    return run
