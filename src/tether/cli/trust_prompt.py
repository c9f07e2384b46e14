"""The REPL's question about a workspace that declares things to run or grant, asked once, at
start-up, before the session (and with it any hook or server) exists.

What it lists is what would run or grant if the user says yes, what runs first: hook
commands, MCP servers' commands, allow rules and modes, then the rest (see
`tether.cli.workspace_review`). A long list is cut kind by kind, each kind keeping lines of its
own and its count, so no kind hides behind another's. Yes trusts the folder (remembered in
`$TETHER_HOME/trust.json`); no continues with the workspace's files restricting only
(remembered too); each takes Enter (`tether.cli.yes_no`). Esc or Ctrl+C continues restricted
this time. In the home directory and above,
neither answer is remembered (the question says so).

The repository's MCP servers (`.mcp.json`, the seed's YAML) that the question showed are
approved by the yes, as the session would otherwise ask about each again: remembered like
the answer to that question (`enabledMcpjsonServers` in the user's store for the workspace),
for this session only where the trust is. Servers it did not show (counted, or added later)
are still asked about.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from rich.console import Console
from rich.text import Text

from tether.cli.startup import LazyOptions
from tether.cli.untrusted_settings import Declared
from tether.cli.workspace_review import WorkspaceReview, count, review_workspace
from tether.cli.yes_no import read_yes_no, typed_before
from tether.config.project import project_root
from tether.config.settings import tether_home
from tether.config.trust import TRUST_FLAG, record_trust, remembered_settings, workspace_trust

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions

MAX_LINES = 20
"""Items listed in the question; the rest are counted, kind by kind."""

QUESTION = "Do you trust this folder?"
APPROVED_SERVERS_KEY = "enabledMcpjsonServers"
SHARED_SERVER_FILES = (".mcp.json", "config/mcp_config.yaml")
"""Where the servers that are approved one by one come from (mcp_setup.APPROVED_SCOPES)."""
YES_HINT = "y  yes, trust this folder (remembered)"
NO_HINT = "n  no, continue restricted: its deny and ask rules apply, nothing it declares runs"
HOME_YES_HINT = "y  yes, trust it for this session (the home directory is asked about each time)"
HOME_NO_HINT = "n  no, continue restricted this session: nothing it declares runs"


async def settle_trust(
    opts: RunOptions | LazyOptions,
    console: Console,
    input: Input | None,
    output: Output | None,
    typed: list[str] | None = None,
) -> RunOptions | LazyOptions:
    """Ask about the workspace when it declares something and nobody has answered yet; the
    options come back trusting it for this run when the user says yes. What is typed at the
    question that is no answer goes to `typed` (for the prompt); the keys typed before it was
    shown wait for the prompt (a real terminal: `input` None)."""
    env = os.environ if isinstance(opts, LazyOptions) or opts.env is None else opts.env
    start = opts.cwd.expanduser().resolve()
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    workspace = project_root(start, user_home=user_home)  # whose files would run
    trust = workspace_trust(
        workspace, tether_home=home, user_home=user_home, env=env, flag=opts.trust_workspace
    )
    if trust.trusted or trust.answered:
        return opts
    review = review_workspace(
        workspace, user_home=user_home, tether_home=home, env=env, start=start
    )
    if not review.declared:
        return opts
    show_question(console, review, recordable=trust.recordable)
    with typed_before(input, terminal=input is None):
        answer = await read_yes_no(input, output, typed)
    if answer is None:
        console.print(Text("  no, for now: restricted this time", style="dim"))
        return opts
    kept = record_trust(workspace, answer, tether_home=home, user_home=user_home)
    how = "remembered" if kept else "for this session"
    if not answer:
        again = "" if kept else f"; pass {TRUST_FLAG} or answer yes next time to trust it"
        console.print(Text(f"  no ({how}): continuing restricted{again}", style="dim"))
        return opts
    console.print(Text(f"  yes ({how})", style="dim"))
    servers = approved_servers(review)
    if kept and servers:
        # Only now: what it imports (the permission engine, the sandbox) is not needed to
        # show the question.
        from tether.cli.safety import remember_setting

        for name in servers:
            remember_setting(remembered_settings(home, workspace), APPROVED_SERVERS_KEY, name)
    return trusting(opts, servers)


def show_question(console: Console, review: WorkspaceReview, *, recordable: bool = True) -> None:
    console.print(
        Text(
            f"? {review.workspace} has files that would run commands or grant permissions:",
            style="bold yellow",
        )
    )
    for line in question_lines(review):
        console.print(Text(f"    {line}"), highlight=False)
    console.print(Text(f"  {QUESTION}", style="bold yellow"))
    hints = (YES_HINT, NO_HINT) if recordable else (HOME_YES_HINT, HOME_NO_HINT)
    console.print(Text("    " + "\n    ".join(hints), style="dim"))


def question_lines(review: WorkspaceReview, limit: int = MAX_LINES) -> list[str]:
    """What the question lists, what runs first. Over `limit` items, each kind gets a share
    of the lines (taken in turn, so every kind gets one) and a count of the rest."""
    groups = review.by_kind()
    shown = _shown_counts(review, limit)
    if shown is None:
        return review.lines()
    lines: list[str] = []
    for kind, items in groups:
        lines.extend(review.line(item) for item in items[: shown[kind]])
        if (left := len(items) - shown[kind]) > 0:
            lines.append(f"... and {count(left, kind).replace(str(left), f'{left} more', 1)}")
    return lines


def approved_servers(review: WorkspaceReview, limit: int = MAX_LINES) -> tuple[str, ...]:
    """The repository's shared servers (approved one by one, `.mcp.json` and the seed's YAML)
    whose lines the question showed: what a yes to it approves."""
    shown = _shown_counts(review, limit)
    listed: list[Declared] = []
    for kind, items in review.by_kind():
        listed += items if shown is None else items[: shown[kind]]
    shared = {review.workspace / name for name in SHARED_SERVER_FILES}
    return tuple(
        dict.fromkeys(
            item.name
            for item in listed
            if item.kind == "MCP server" and item.name and item.source in shared
        )
    )


def _shown_counts(review: WorkspaceReview, limit: int) -> dict[str, int] | None:
    """How many items of each kind the question shows; None when it shows them all."""
    groups = review.by_kind()
    if len(review.declared) <= limit:
        return None
    shown = dict.fromkeys((kind for kind, _ in groups), 0)
    budget = limit
    while budget > 0 and any(shown[kind] < len(items) for kind, items in groups):
        for kind, items in groups:
            if budget > 0 and shown[kind] < len(items):
                shown[kind] += 1
                budget -= 1
    return shown


def trusting(
    opts: RunOptions | LazyOptions, servers: tuple[str, ...] = ()
) -> RunOptions | LazyOptions:
    """The same options, trusting the workspace for this run, with `servers` approved."""
    if isinstance(opts, LazyOptions):
        make = opts.make
        return dataclasses.replace(
            opts,
            trust_workspace=True,
            make=lambda: dataclasses.replace(
                make(), trust_workspace=True, approved_servers=servers
            ),
        )
    return dataclasses.replace(opts, trust_workspace=True, approved_servers=servers)
