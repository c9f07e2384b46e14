"""What the project, the user and the plugins declare for a session: its skills and commands
(the client's choice of skills; no grants from an untrusted workspace), its agents (with the
client's; no hooks from an untrusted workspace's files), its MCP servers (with
`--mcp-config`'s), and the one warning of what an untrusted workspace declared."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tether.agents import AgentCatalog, discover_agents
from tether.cli.client_parts import ClientParts, only_skills, with_client_agents
from tether.cli.mcp_setup import TRUTHY, McpSetup, mcp_setup
from tether.cli.plugin_parts import SessionPlugins
from tether.cli.run_options import RunOptions
from tether.cli.session_place import SessionPlace
from tether.cli.workspace_review import review_workspace, without_workspace_grants
from tether.config.project import project_directories
from tether.config.trust import consent_notice, untrusted_notice
from tether.mcp.config import command_line_servers
from tether.skills import SkillCatalog, discover_skills
from tether.skills.commands import CommandCatalog, discover_commands


def session_skills(
    place: SessionPlace, plugins: SessionPlugins, client: ClientParts
) -> tuple[SkillCatalog, CommandCatalog]:
    """The skills offered (the Skill tool runs the commands the model may run too) and the
    commands."""
    workspace, user_home, admits = place.workspace, place.user_home, place.sources.admits
    below = project_directories(workspace, place.start)[:0:-1]  # deepest first, the root left out
    found_skills = discover_skills(
        workspace, home=user_home, below=below, admits=admits, plugins=plugins.skills()
    )
    skills = only_skills(found_skills, client.skills)
    commands = discover_commands(
        workspace, home=user_home, admits=admits, plugins=plugins.commands()
    )
    # The Skill tool runs the commands the model may run, as Claude Code's does.
    skills = replace(skills, commands=commands.offered_to_model())
    if not place.trust.trusted:
        skills = without_workspace_grants(skills, place.owners)
    return skills, commands


def session_servers(
    place: SessionPlace,
    opts: RunOptions,
    client: ClientParts,
    plugins: SessionPlugins,
    *,
    window: int,
    roots: tuple[Path, ...] = (),
) -> tuple[McpSetup, list[str]]:
    """The session's MCP servers (not connected yet), and the problems found reading them; the
    workspace and `roots` (the other directories it may work in) are the roots servers are
    told of, and the client's the channel of its own servers and answers to their forms."""
    env = place.env
    mcp, problems = mcp_setup(
        place.settings_root,  # a task worktree's servers are its main workspace's (local ones too)
        home=place.user_home,
        tether_home=place.home,
        env=env,
        settings=place.settings,
        window=window,
        trusted=place.trust.trusted,
        approved=opts.approved_servers,
        declined=opts.declined_servers,
        command_line=command_line_servers(
            opts.mcp_configs, workspace=place.workspace, env=env, exchange=client.mcp_exchange
        ),
        strict=opts.strict_mcp_config,
        plugins=plugins.mcp(place.workspace, env),
    )
    # The REPL never holds the first request for a slow server; -p and stream-json wait for
    # them, as Claude Code's print mode does, unless MCP_CONNECTION_NONBLOCKING says not to.
    nonblocking = env.get("MCP_CONNECTION_NONBLOCKING", "").strip().lower() in TRUTHY
    mcp.background = opts.mcp_background or nonblocking
    mcp.roots = (place.workspace, *roots)
    mcp.client = client  # its servers added while it runs, its answers to servers' forms
    return mcp, problems


def untrusted_warning(place: SessionPlace, opts: RunOptions) -> str | None:
    """The one start-up warning naming what an untrusted workspace declared and was skipped,
    or that a flag consented to it for this run (None: trusted, or it declared nothing)."""
    if place.trust.trusted:
        return consent_notice(place.trust)
    # What the session reads: a task worktree's settings and servers are its main workspace's.
    relocated = place.settings_root != place.workspace
    review = review_workspace(
        place.settings_root,
        start=None if relocated else place.start,
        user_home=place.user_home,
        tether_home=place.home,
        env=place.env,
        explicit=opts.settings_path,  # applied whole: not "skipped"
    )
    return untrusted_notice(review.summary(), place.trust) if review.declared else None


def session_agents(
    place: SessionPlace, plugins: SessionPlugins, client: ClientParts
) -> AgentCatalog:
    """The agents of the user, the project and the plugins, with the client's: none runs hooks
    when the settings turn them off, nor one of an untrusted workspace's files (as its settings
    files run none)."""
    hooks_off = place.settings.data.get("disableAllHooks") is True
    trusted, owners = place.trust.trusted, place.owners
    found = discover_agents(
        place.workspace, home=place.user_home, admits=place.sources.admits, plugins=plugins.agents()
    )
    return with_client_agents(found, client.agents).hooks_only_where(
        lambda agent: (
            not hooks_off and (agent.path is None or trusted or not owners.needs_trust(agent.path))
        )
    )
