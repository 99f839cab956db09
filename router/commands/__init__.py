"""The subcommands of ``grounding-router``, one module each.

Each module exposes ``register(subparsers)`` and keeps its heavy imports inside the function that
runs the command, so ``grounding-router --help`` stays fast.
"""
