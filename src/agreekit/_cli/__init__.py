"""Subcommand modules of the ``agreekit`` CLI; one per area, each with ``register(subparsers)``."""
