"""tether's subcommands: `tether NAME ...` runs `tether.cli.<module>.main(argv) -> int`.

One table for the dispatcher (which imports only the module named) and for `--help` (which
lists them), so a new subcommand cannot be missing from the help.
"""

SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "sessions": ("sessions_cmd", "list, show or remove this project's sessions"),
    "permissions": ("permissions_cmd", "what the rules decide for a tool call"),
    "sandbox": ("sandbox_cmd", "whether the Bash sandbox works here, each property tested"),
    "hooks": ("hooks_cmd", "list the configured hooks and run each once"),
    "mcp": ("mcp_cmd", "list, add or remove MCP servers; serve tether's tools over MCP"),
    "trust": ("trust_cmd", "trust this workspace (or not) without starting a session"),
    "tasks": ("tasks_cmd", "a team's task board: add, list, show, retry, remove"),
    "worktrees": ("worktrees_cmd", "task worktrees: list, merge one, clean up"),
    "worker": ("worker_cmd", "autonomous workers: claim the board's tasks and run each"),
    "board": ("board_cmd", "a team's board, live: tasks by state, owners, leases, cost"),
    "team": ("team_cmd", "teammates: start them (up), status, send a message, down"),
    "cost": ("cost_cmd", "what was spent, by tool, model, session, task, agent or day"),
    "events": ("events_cmd", "the event log of every session: tail, follow, filter"),
    "eval": ("eval_cmd", "run an evaluation suite, report it; compare two evaluations"),
    "memory": ("memory_cmd", "this project's memories: list, search, remove"),
}
"""name -> (module under tether.cli, one line for --help)."""


def subcommand_lines() -> str:
    """The subcommands as `--help` lists them, one a line."""
    return "".join(f"  tether {name:<20} {line}\n" for name, (_, line) in SUBCOMMANDS.items())
