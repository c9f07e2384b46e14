"""`tether trust`: trust this workspace (or say no to it, or show where it stands), without
starting a session. The answer is the one the REPL's question records. With
`--external-imports` (or `--no-external-imports`) it answers instead the other question the REPL
asks: whether the workspace's instructions may import files from outside it."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tether.cli.workspace_review import review_workspace
from tether.config.project import project_root
from tether.config.settings import tether_home
from tether.config.trust import record_external_imports, record_trust, workspace_trust


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether trust",
        description="Trust a workspace: run what its files declare (hooks, MCP servers, allow "
        "rules, modes, skills' allowed-tools). Until then they only restrict.",
    )
    parser.add_argument("--cwd", type=Path, default=None, help="the workspace (default: here)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--no", action="store_true", help="record no: keep it restricted")
    what.add_argument("--show", action="store_true", help="only show what it declares")
    what.add_argument(
        "--external-imports",
        action="store_true",
        help="record yes to its instructions' imports of files outside it (CLAUDE.md @path)",
    )
    what.add_argument(
        "--no-external-imports",
        action="store_true",
        help="record no to its instructions' imports of files outside it",
    )
    args = parser.parse_args(argv)
    start = (args.cwd or Path.cwd()).expanduser().resolve()
    home = tether_home()
    user_home = Path(os.environ.get("HOME") or Path.home())
    workspace = project_root(start, user_home=user_home)
    if args.external_imports or args.no_external_imports:
        approved = bool(args.external_imports)
        if not record_external_imports(workspace, approved, tether_home=home, user_home=user_home):
            print(_NOT_RECORDED.format(workspace=workspace), file=sys.stderr)
            return 1
        state = "read" if approved else "not read"
        print(f"{workspace}: imports of files outside it are {state} (recorded)")
        return 0
    review = review_workspace(
        workspace, user_home=user_home, tether_home=home, env=os.environ, start=start
    )
    for line in review.lines():
        print(f"  {line}")
    if not review.declared:
        print(f"{workspace} declares nothing that needs trust")
    if args.show:
        trust = workspace_trust(workspace, tether_home=home, user_home=user_home, env=os.environ)
        state = "trusted" if trust.trusted else "not trusted"
        print(f"{workspace}: {state} ({trust.reason})")
        return 0
    if not record_trust(workspace, not args.no, tether_home=home, user_home=user_home):
        print(_NOT_RECORDED.format(workspace=workspace), file=sys.stderr)
        return 1
    print(f"{workspace}: {'not trusted (recorded)' if args.no else 'trusted (recorded)'}")
    return 0


_NOT_RECORDED = (
    "tether: {workspace} is the home directory or above it: nothing is recorded for it, yes or "
    "no; it is trusted one session at a time (answer yes when tether asks, or pass "
    "--trust-workspace)"
)
