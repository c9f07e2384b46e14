"""Whether a session belongs to a team: asked by every session's build, so kept apart from the
board and the task store (their modules and models cost a start that has no team)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tether.protocol import ConfigError

STORE_ENV = "TETHER_TEAM_STORE"
TEAM_ENV = "TETHER_TEAM"
ENABLE_ENV = "CLAUDE_CODE_ENABLE_TASKS"
"""Claude Code's switch for its task tools; tether reads it too."""
CLAIM_ENV = "TETHER_TASK_CLAIM"
"""`ID@FENCE@CREATED`: the claim a worker holds on the task its session was given (the
session's agent may complete or fail that task through it; the worker renews and releases
it). CREATED (when the task was made on its board) tells the task from a later one given the
same id and fence by a board that started again empty."""
CLAIM_TEAM_ENV = "TETHER_TASK_CLAIM_TEAM"
"""The team of the task `CLAIM_ENV` lends, for a session given no board of its own (an
evaluation's run, `tether eval worker`): its spend is filed under that team's task."""


def tools_wanted(settings: Mapping[str, Any], env: Mapping[str, str]) -> bool:
    """Whether a session offers the task tools: it belongs to a team (`TETHER_TEAM`, a store
    or a `teams` setting), or Claude Code's `CLAUDE_CODE_ENABLE_TASKS` asks for them."""
    enabled = env.get(ENABLE_ENV, "").lower() in ("1", "true", "yes")
    return enabled or bool(env.get(TEAM_ENV) or env.get(STORE_ENV) or settings.get("teams"))


def worker_task(env: Mapping[str, str]) -> dict[str, str] | None:
    """The task a worker's session was started for (`{"team": ..., "id": ..., "claim": ...}`,
    from the claim the worker lends it), None for any other session: recorded in the
    session's file, so that `--continue` can tell a worker's sessions from the user's own, and
    a resumed one files its spend under its task (the claim's creation time tells that task
    from a later one of the same id)."""
    claim = env.get(CLAIM_ENV, "")
    task_id = claim.split("@")[0]
    if not task_id:
        return None
    return {"team": env.get(TEAM_ENV) or "default", "id": task_id, "claim": claim}


def board_note(env: Mapping[str, str]) -> dict[str, str | None] | None:
    """The board a session's environment names (`{"team": ..., "store": ...}`: a worker's
    task session, a teammate's), None when it names none: recorded in the session's file, so
    that the session resumed without that environment (`tether -r ID`) works on the same
    board. A Redis URL's password is not written (`***` in its place)."""
    team, store = env.get(TEAM_ENV), env.get(STORE_ENV)
    if not (team or store):
        return None
    if store:
        from tether.store.store_url import redacted

        store = redacted(store)
    return {"team": team or "default", "store": store or None}


START_WAIT_S = 120.0
"""How long `team up` (and a lead's Task tool) waits for a teammate's process to have its
mailbox loop running before it says it did not start (and ends it)."""
STORE_PATIENCE_S = 600.0
"""How long a teammate waits for its store to answer again before it stops: with no store it
can neither receive nor be stopped by `team down`, so it does not linger for ever. (Here,
not with the receiving loop, for `tether team`'s options: `team send` imports no event loop.)"""

OWNER_ENV = "TETHER_TASK_OWNER"
LEASE_ENV = "TETHER_TASK_LEASE"
"""Seconds of a lease on the tasks a session claims itself (a teammate's: `team up --lease`);
the default `DEFAULT_LEASE_S`."""


@dataclass(frozen=True)
class TeamChoice:
    team: str
    store_url: str | None
    """None: the project's SQLite file."""


def team_choice(
    settings: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    team: str | None = None,
    store: str | None = None,
) -> TeamChoice:
    """Flags, then the environment, then the `teams` setting (`{"store": URL, "team": NAME}`)."""
    from tether.store.store_url import DEFAULT_TEAM

    block = settings.get("teams")
    section: Mapping[str, Any] = block if isinstance(block, dict) else {}
    for key, value in section.items():
        if key not in ("store", "team"):
            raise ConfigError(f"teams.{key} is not a setting (store, team)")
        if not isinstance(value, str) or not value:
            raise ConfigError(f"teams.{key} must be a non-empty string")
    for flag, value in (("--team", team), ("--store", store)):
        if value is not None and not value.strip():
            raise ConfigError(f"{flag} is empty: name one (or leave the option out)")
    return TeamChoice(
        team=team or env.get(TEAM_ENV) or section.get("team") or DEFAULT_TEAM,
        store_url=store or env.get(STORE_ENV) or section.get("store"),
    )
