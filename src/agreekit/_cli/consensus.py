"""CLI subcommands for the consensus area (filled in by its issue)."""


def register(subparsers) -> None:  # noqa: D401 - no subcommands yet
    return None
