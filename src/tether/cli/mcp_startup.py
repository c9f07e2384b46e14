"""The REPL's question about the repository's new MCP servers, at start-up: right after the
trust question and before the message prompt exists, as Claude Code asks it, so that nobody is
typing a message when it appears.

One list of the servers of `.mcp.json` (and the seed's YAML) that nobody has approved or
rejected yet, each checked: Up and Down move, Space checks or unchecks, Enter confirms (the
checked ones used, the others rejected), Esc rejects them all. Only then is anything kept:
`enabledMcpjsonServers` and `disabledMcpjsonServers` in the user's own store for the workspace
(`tether.config.trust.remembered_settings`), which the answer names along with `/mcp enable`
and `/mcp disable`, which change it. Ctrl+C (or a closed input) decides nothing: none of them
runs this session, and the question comes back next time. Keys typed before the list was
shown are kept from it and wait for the prompt.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import FormattedTextControl
from prompt_toolkit.output import Output
from rich.console import Console
from rich.text import Text

from tether.cli.ask import exit_with, one_line
from tether.cli.startup import LazyOptions
from tether.cli.trust_prompt import SHARED_SERVER_FILES
from tether.cli.untrusted_settings import Declared
from tether.cli.workspace_review import review_workspace
from tether.cli.yes_no import typed_before
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.config.trust import remembered_settings, workspace_trust

if TYPE_CHECKING:
    from tether.cli.setup import RunOptions

KEYS_HINT = "↑/↓ move · Space check or uncheck · Enter use the checked ones · Esc reject all"
CHANGE_HINT = "change it with /mcp enable NAME or /mcp disable NAME"


async def settle_servers(
    opts: RunOptions | LazyOptions,
    console: Console,
    input: Input | None,
    output: Output | None,
) -> RunOptions | LazyOptions:
    """Ask about the trusted workspace's servers nobody has decided on; the options come back
    with the ones chosen approved and the others declined for this run."""
    env = os.environ if isinstance(opts, LazyOptions) or opts.env is None else opts.env
    start = opts.cwd.expanduser().resolve()
    home = tether_home(env)
    user_home = Path(env.get("HOME") or Path.home())
    workspace = project_root(start, user_home=user_home)
    if not any((workspace / name).is_file() for name in SHARED_SERVER_FILES):
        return opts
    trust = workspace_trust(
        workspace, tether_home=home, user_home=user_home, env=env, flag=opts.trust_workspace
    )
    if not trust.trusted:  # its servers do not run: nothing to ask
        return opts
    from tether.protocol import ConfigError  # only with servers to ask about

    try:
        servers = undecided_servers(workspace, start, home, user_home, env, opts)
    except ConfigError:
        return opts  # the session says what is wrong with the settings as it starts
    if not servers:
        return opts
    store = remembered_settings(home, workspace)
    console.print(Text(_heading(servers, workspace), style="bold yellow"))
    with typed_before(input, terminal=input is None):
        names = [s.name for s in servers]
        what = [s.detail.removeprefix(f"{s.name}: ") for s in servers]
        chosen = await read_choice(names, what, input, output)
    if chosen is None:
        console.print(Text("  none of them this session (asked again next time)", style="dim"))
        return with_servers(opts, (), tuple(names))
    rejected = [n for n in names if n not in chosen]
    from tether.cli.mcp_decisions import decide_servers

    decide_servers(store, enabled=chosen, disabled=rejected)
    used = f"using {', '.join(chosen)}" if chosen else "using none of them"
    no = f"; rejected {', '.join(rejected)}" if rejected and chosen else ""
    kept = f"kept in {_shown(store, user_home)}; {CHANGE_HINT}"
    console.print(Text(f"  {used}{no} ({kept})", style="dim"))
    return with_servers(opts, tuple(chosen), tuple(rejected))


def undecided_servers(
    workspace: Path,
    start: Path,
    home: Path,
    user_home: Path,
    env: Mapping[str, str],
    opts: RunOptions | LazyOptions,
) -> list[Declared]:
    """The repository's shared servers nobody approved or rejected (nor the trust question's
    yes this run), as the workspace review lists them. Raises `ConfigError` for settings
    that cannot be read."""
    from tether.mcp.config import claude_decisions, is_project_server_enabled, with_decisions

    review = review_workspace(
        workspace, user_home=user_home, tether_home=home, env=env, start=start
    )
    shared = {workspace / name for name in SHARED_SERVER_FILES}
    approved = () if isinstance(opts, LazyOptions) else opts.approved_servers
    files = settings_files(workspace, home=home, user_home=user_home, start=start)
    decided = claude_decisions(workspace, home=user_home, env=env, problems=[])  # told later
    data = with_decisions(load_settings(files).data, decided)
    found: dict[str, Declared] = {}
    for item in review.declared:
        if item.kind != "MCP server" or not item.name or item.source not in shared:
            continue
        if item.name in approved or is_project_server_enabled(item.name, data) is not None:
            continue
        found.setdefault(item.name, item)
    return list(found.values())


async def read_choice(
    names: list[str], details: list[str], input: Input | None, output: Output | None
) -> list[str] | None:
    """The checked names when Enter confirms ([] for Esc); None for Ctrl+C or a closed input."""
    checked = [True] * len(names)
    at = [0]

    def lines() -> FormattedText:
        shown: list[tuple[str, str]] = []
        for i, (name, detail) in enumerate(zip(names, details, strict=True)):
            mark = ">" if i == at[0] else " "
            box = "[✔]" if checked[i] else "[ ]"
            shown.append(("class:question", f"  {mark} {box} {name}"))
            shown.append(("class:hint", f"  {detail}\n"))
        return FormattedText([*shown, ("class:hint", f"  {KEYS_HINT}")])

    bindings = KeyBindings()

    @bindings.add("up")
    def _up(_event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        at[0] = max(0, at[0] - 1)

    @bindings.add("down")
    def _down(_event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        at[0] = min(len(names) - 1, at[0] + 1)

    @bindings.add("space")
    def _toggle(_event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        checked[at[0]] = not checked[at[0]]

    @bindings.add("enter")
    def _confirm(event: KeyPressEvent) -> None:  # pyright: ignore[reportUnusedFunction]
        event.app.exit(result=[n for n, c in zip(names, checked, strict=True) if c])

    bindings.add("escape", eager=True)(exit_with([]))
    for key in ("c-c", "<sigint>", "c-d"):
        bindings.add(key, eager=True)(exit_with(None))
    control = FormattedTextControl(lines, show_cursor=False)
    try:
        return await one_line(control, bindings, input, output, height=len(names) + 1).run_async()
    except EOFError:
        return None


def with_servers(
    opts: RunOptions | LazyOptions, approved: tuple[str, ...], declined: tuple[str, ...]
) -> RunOptions | LazyOptions:
    """The same options with `approved` servers used and `declined` ones not, this run."""
    if isinstance(opts, LazyOptions):
        make = opts.make
        return dataclasses.replace(opts, make=lambda: _with_run(make(), approved, declined))
    return _with_run(opts, approved, declined)


def _with_run(opts: RunOptions, approved: tuple[str, ...], declined: tuple[str, ...]) -> RunOptions:
    return dataclasses.replace(
        opts,
        approved_servers=(*opts.approved_servers, *approved),
        declined_servers=(*opts.declined_servers, *declined),
    )


def _heading(servers: list[Declared], workspace: Path) -> str:
    files = sorted({str(s.source.relative_to(workspace)) for s in servers})
    many = f"{len(servers)} new MCP servers" if len(servers) > 1 else "A new MCP server"
    return f"? {many} in this project's {' and '.join(files)}: choose the ones to use"


def _shown(path: Path, user_home: Path) -> str:
    try:
        return "~/" + str(path.relative_to(user_home))
    except ValueError:
        return str(path)
