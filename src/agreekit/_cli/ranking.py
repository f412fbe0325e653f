"""CLI subcommands for weighted rank correlations."""


def register(subparsers) -> None:
    return None
