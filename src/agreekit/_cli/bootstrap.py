"""CLI subcommands for the bootstrap area (filled in by its issue)."""


def register(subparsers) -> None:  # noqa: D401 - no subcommands yet
    return None
