"""The one command line, ``tablecompanion <subcommand>``.

Each area of the product registers its own subcommands from a module in this package that defines
``register(subparsers)``; the modules are found at start-up, so adding an area never edits this file.
A module's parsers set ``func`` to a callable taking the parsed ``argparse.Namespace`` and returning an
exit status.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import tablecompanion


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tablecompanion",
        description="A companion for backgammon on a physical board. "
        "Run 'tablecompanion serve' to start the table dashboard (demo mode with no arguments).",
    )
    parser.add_argument("--version", action="version", version=f"tablecompanion {tablecompanion.__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0 if args.command is None else 2
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
