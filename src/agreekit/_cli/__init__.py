"""Subcommand modules of the ``agreekit`` CLI; one per area, each with ``register(subparsers)``."""


def resolve_seed(seed: int | None) -> int:
    """The seed a command uses: ``--seed`` if given, else fresh OS entropy (printed so a run can be repeated)."""
    if seed is not None:
        return int(seed)
    import secrets

    return secrets.randbits(64)


def add_quiet(p) -> None:
    """``--quiet`` (:func:`agreekit._cli._common.add_quiet`): :func:`agreekit.cli.build_parser` adds it to every
    subcommand that did not."""
    from agreekit._cli._common import add_quiet as add  # cli.py imports this package first: _common loads late

    add(p)
