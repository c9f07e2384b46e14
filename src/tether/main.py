"""The `tether` command's entry point: answers --version at once, loads the rest only when needed.

It is the composition root above every layer: `tether demo` runs the scripted demo from the
test kit; everything else goes to the command-line front end.
"""

from __future__ import annotations

import sys

SUBCOMMANDS = {
    "permissions": "permissions_cmd",
    "sandbox": "sandbox_cmd",
    "hooks": "hooks_cmd",
    "sessions": "sessions_cmd",
    "mcp": "mcp_cmd",
    "trust": "trust_cmd",
}
"""`tether NAME ...` runs `tether.cli.<module>.main(argv) -> int`."""


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-v") and len(args) == 1:
        from tether import __version__

        print(f"{__version__} (tether)")
        return 0
    if args and args[0] == "demo":
        from tether.testing.demo import main as demo_main

        return demo_main(args[1:])
    if args and args[0] in SUBCOMMANDS:
        from importlib import import_module

        command = import_module(f"tether.cli.{SUBCOMMANDS[args[0]]}")
        return int(command.main(args[1:]))
    from tether.cli.app import main as app_main

    return app_main(args)


def console_main() -> None:
    sys.exit(main())
