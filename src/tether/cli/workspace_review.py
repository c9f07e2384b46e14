"""What a workspace's own files would run or grant, and its settings with all of that taken out.

A cloned repository is someone else's code. Until the user trusts the workspace (see
`tether.config.trust`), its files only restrict: their deny and ask rules apply, and nothing
they declare runs or grants. What needs trust:

- settings files in the workspace (`.claude/settings*.json`, `.tether/settings*.json`): hooks;
  allow rules; a `defaultMode` other than default, plan or dontAsk; `additionalDirectories`;
  `env` (it can set PATH, LD_PRELOAD, a base URL); `providers` (a base URL the key would go
  to); a `sandbox` that is off, has the network, more writable paths, or shows paths of the
  hidden home (`readable`: credential stores among them); commands such as
  `apiKeyHelper` and `statusLine`; the event log (`tether.eventLog`, a file it writes);
  `webhooks` (where the session's events would be sent);
- MCP servers configured in the workspace: `.mcp.json`, the seed's `config/mcp_config.yaml`,
  `.tether/mcp.local.json`;
- `allowed-tools` of the workspace's skills, and the seed's `.tether/permissions.yaml` allow lists.

Kept from an untrusted settings file: `permissions.deny` and `.ask`, a restrictive
`defaultMode`, `disableAllHooks: true`, `disabledMcpjsonServers`, a sandbox's restrictive keys
(`enabled: true`, `network: false`, `required`/`failIfUnavailable: true`), and neutral keys
(`model`, `contextWindow`, `maxOutputTokens`, `tether.mcp`, `tether.subagents`,
`tether.toolStats`, `tether.slowToolMs`, `tether.modelIdleTimeoutMs`). Anything else is left
out while untrusted: a key nobody listed here grants nothing by default.

Whose a file is goes by the path it was found at, never by where it resolves (see
`Ownership`): `.claude/settings.json -> ../../x.json`, a `.claude` directory linked elsewhere,
or a link into `/tmp` that a command fills later are the workspace's all the same. A link
from a workspace's configuration to outside the workspace is itself listed, even dangling.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from tether import bounded_json
from tether.cli.ownership import Ownership, links_out, real_path
from tether.cli.untrusted_settings import Declared, restrict_layer
from tether.config.project import project_directories
from tether.shown_urls import shown_url
from tether.slotted import Slotted, replaced

if TYPE_CHECKING:
    from tether.skills.catalog import SkillCatalog

PROJECT_SETTINGS = (
    Path(".claude") / "settings.json",
    Path(".tether") / "settings.json",
    Path(".claude") / "settings.local.json",
    Path(".tether") / "settings.local.json",
)
MCP_FILES = (
    Path(".mcp.json"),
    Path("config") / "mcp_config.yaml",
    Path(".tether") / "mcp.local.json",
)
SEED_PERMISSIONS = Path(".tether") / "permissions.yaml"
SKILL_DIRS = (".tether/skills", ".claude/skills", ".agents/skills")
"""`tether.skills.discovery.PROJECT_SKILL_DIRS`, here so that a workspace without skills does not
import the skills package (and pydantic with it) before the REPL's first prompt."""

AGENT_DIRS = (".claude/agents", ".tether/agents")
"""`tether.agents.discovery.PROJECT_AGENT_DIRS`."""
LINKED = (
    *PROJECT_SETTINGS,
    *MCP_FILES,
    SEED_PERMISSIONS,
    *(Path(d) for d in SKILL_DIRS),
    *(Path(d) for d in AGENT_DIRS),
)
"""The workspace's configuration that a link to outside it must not hide."""
KIND_ORDER = (
    "hook",
    "MCP server",
    "command",
    "allow rule",
    "permission mode",
    "allow pattern",
    "skill grant",
    "additional directory",
    "environment variable",
    "model provider",
    "sandbox setting",
    "event log",
    "link outside the workspace",
)
"""What runs first, then what grants, then the rest: the order the question and the warning
name them in."""


class WorkspaceReview(Slotted):
    """Everything in a workspace that needs the user's trust before it runs or grants."""

    __slots__ = ("declared", "workspace")
    workspace: Final[Path]
    declared: Final[tuple[Declared, ...]]

    def __init__(self, workspace: Path, declared: tuple[Declared, ...] = ()) -> None:
        self.workspace = workspace
        self.declared = declared

    def by_kind(self) -> list[tuple[str, list[Declared]]]:
        """The items grouped by kind, in `KIND_ORDER` (a kind not listed there comes last)."""
        groups: dict[str, list[Declared]] = {}
        for item in self.declared:
            groups.setdefault(item.kind, []).append(item)
        rank = {kind: i for i, kind in enumerate(KIND_ORDER)}
        return sorted(groups.items(), key=lambda group: rank.get(group[0], len(rank)))

    def summary(self) -> str:
        """One short phrase, each kind named once: "3 hooks, 2 MCP servers, 4 allow rules and
        bypassPermissions mode from 3 project files"."""
        if not self.declared:
            return "nothing"
        counted: list[str] = []
        for kind, items in self.by_kind():
            if kind == "permission mode":
                modes = dict.fromkeys(i.detail for i in items)
                counted.append(f"{'/'.join(modes)} mode")
            else:
                counted.append(count(len(items), kind))
        phrase = counted[0] if len(counted) == 1 else f"{', '.join(counted[:-1])} and {counted[-1]}"
        sources = list(dict.fromkeys(i.source for i in self.declared))
        where = self.shown(sources[0]) if len(sources) == 1 else f"{len(sources)} project files"
        return f"{phrase} from {where}"

    def line(self, item: Declared) -> str:
        """One item, for the question."""
        return f"{item.kind}: {item.detail}  ({self.shown(item.source)})"

    def lines(self) -> list[str]:
        """One line per item, what runs first."""
        return [self.line(i) for _, items in self.by_kind() for i in items]

    def shown(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.workspace))
        except ValueError:
            return str(path)


def review_workspace(
    workspace: Path,
    *,
    user_home: Path,
    tether_home: Path,
    env: Mapping[str, str],
    explicit: Path | None = None,
    start: Path | None = None,
) -> WorkspaceReview:
    """Everything the workspace declares that needs trust. Reads only what exists: a workspace
    without such files costs a few `stat` calls. A project settings file that is also the
    `explicit` (`--settings`) file is applied whole, so it is not listed. `start`: the
    directory tether started in, below the workspace root: the settings and skills of the
    directories down to it count too (`tether.config.project`)."""
    owners = Ownership(workspace, user_home, tether_home)
    given = real_path(explicit) if explicit is not None else None
    directories = project_directories(workspace, start) if start is not None else [workspace]
    declared: list[Declared] = []
    for directory in directories:
        for relative in PROJECT_SETTINGS:
            path = directory / relative
            if path.is_file() and owners.needs_trust(path) and real_path(path) != given:
                declared.extend(restrict_layer(path, _json_object(path))[1])
    declared.extend(_servers(workspace, owners, env))
    declared.extend(_seed_allows(workspace / SEED_PERMISSIONS, owners))
    declared.extend(_skill_grants(workspace, owners, directories[:0:-1]))
    declared.extend(_links_out(workspace, owners))
    return WorkspaceReview(workspace, tuple(declared))


def _links_out(workspace: Path, owners: Ownership) -> Iterable[Declared]:
    return [
        Declared(link, "link outside the workspace", f"{link.relative_to(workspace)} -> {shown}")
        for link, shown in links_out(workspace, LINKED, owners)
    ]


def _json_object(path: Path) -> Mapping[str, Any]:
    try:
        data = bounded_json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return {}  # loading the settings reports it, naming the spot
    return cast(dict[str, Any], data) if isinstance(data, dict) else {}


def _servers(workspace: Path, owners: Ownership, env: Mapping[str, str]) -> Iterable[Declared]:
    if not any((workspace / f).is_file() for f in MCP_FILES):
        return []
    from tether.mcp.config import load_servers  # the MCP config reader: only with a file to read
    from tether.mcp.servers import ClientTransport, StdioTransport

    config = load_servers(workspace, home=owners.user_home, tether_home=owners.tether_home, env=env)
    found: list[Declared] = []
    for server in config.servers:
        if not owners.needs_trust(server.source):
            continue
        transport = server.transport
        if isinstance(transport, StdioTransport):
            what = "runs " + " ".join([transport.command, *transport.args])
        elif isinstance(transport, ClientTransport):
            what = "is served by the client"
        else:
            what = f"connects to {shown_url(transport.url, path=True)}"
        found.append(Declared(server.source, "MCP server", f"{server.name}: {what}", server.name))
    return found


def _seed_allows(path: Path, owners: Ownership) -> Sequence[Declared]:
    if not path.is_file() or not owners.needs_trust(path):
        return []
    from tether.permissions.seed_yaml import load_seed_rules
    from tether.protocol import ConfigError

    try:
        rules = load_seed_rules(path)
    except ConfigError:
        return []  # the session's own loading reports the broken file and stops
    return [Declared(path, "allow pattern", r.specifier or "") for r in rules if r.kind == "allow"]


def _skill_grants(workspace: Path, owners: Ownership, below: Sequence[Path]) -> Sequence[Declared]:
    if not any((d / s).is_dir() for d in (*below, workspace) for s in SKILL_DIRS):
        return []
    from tether.skills.discovery import discover_skills

    catalog = discover_skills(workspace, home=owners.user_home, include_builtin=False, below=below)
    return [
        Declared(s.path, "skill grant", f"{s.name}: {', '.join(s.allowed_tools)}")
        for s in catalog.skills
        if s.allowed_tools and owners.needs_trust(s.path)
    ]


def without_workspace_grants(catalog: SkillCatalog, owners: Ownership) -> SkillCatalog:
    """The catalogue with the workspace's skills and commands granting nothing (their
    `allowed-tools` dropped); their instructions still load."""
    skills = tuple(
        replaced(s, allowed_tools=()) if owners.needs_trust(s.path) else s for s in catalog.skills
    )
    commands = tuple(
        replaced(c, allowed_tools=()) if owners.needs_trust(c.path) else c for c in catalog.commands
    )
    return replace(catalog, skills=skills, commands=commands)


def count(number: int, kind: str) -> str:
    """ "1 hook", "2 hooks", "3 additional directories"."""
    if number == 1:
        return f"1 {kind}"
    if kind.startswith("link "):
        return f"{number} links {kind[5:]}"
    return f"{number} {kind[:-1] + 'ies' if kind.endswith('y') else kind + 's'}"
