"""Whether the user trusts a workspace: the answers kept under `$TETHER_HOME/trust.json`, Claude
Code's own record, and the flag or variable that trusts for one run.

A workspace is trusted when, first match wins:

1. `--trust-workspace` or `TETHER_TRUST_WORKSPACE=1` (read from the real environment, never from
   a settings file's `env`) says so, for this run;
2. the nearest recorded answer for it or a directory above it says yes: tether's own
   (`trust.json`, keyed by real path), or Claude Code's `~/.claude.json`
   `projects[<path>].hasTrustDialogAccepted` (only read). An answer recorded for the workspace
   itself wins over one for a directory above; a "no" above does not reach below;
3. an explicit `--setting-sources` naming `project` or `local` (the Agent SDK's `setting_sources`)
   consents to the workspace's files for this run, as Claude Code reads them headless; the
   session says so where the untrusted warning would be (`consent_notice`);
4. otherwise it is not trusted (and the REPL asks, unless the answer "no" was recorded).

The home directory, and every directory above it, trusts only itself: one yes there must not
trust every repository cloned under it. An answer there is for that session only, yes or no,
never recorded (as in Claude Code, which asks there every time); `tether trust` refuses it.

The user's other answers for a workspace ("always allow" rules, MCP server approvals) are kept
in the user's own store too, `$TETHER_HOME/workspaces/<slug>-<hash>.json` (`remembered_settings`),
keyed by the workspace's real path: a repository can ship a `.tether/settings.local.json`, so
that file is the workspace's (it needs trust), while the user's answers hold whether or not the
workspace is trusted, in the REPL and headless alike.

Whether the user approved a workspace's external instruction imports (files outside it that its
CLAUDE.md or AGENTS.md import: `config.instructions`) is kept beside its trust answer in
`trust.json`, for the workspace itself only; Claude Code's
`projects[<path>].hasClaudeMdExternalIncludesApproved` is honoured and only read.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Collection, Generator, Mapping
from pathlib import Path
from typing import Any, Final, cast

from tether import bounded_json
from tether.claude_state_file import read_claude_state
from tether.slotted import Slotted
from tether.text_files import DEFAULT_LIMIT_BYTES, UnreadableFile, read_text_file

TRUST_FILE = "trust.json"
REMEMBERED_DIR = "workspaces"
"""Under `$TETHER_HOME`: one settings file per workspace with the user's answers there."""
EXTERNAL_IMPORTS_KEY = "externalImports"
"""In a workspace's entry of `trust.json`: the answer about its external instruction imports."""
CLAUDE_EXTERNAL_IMPORTS_KEY = "hasClaudeMdExternalIncludesApproved"
TRUST_ENV = "TETHER_TRUST_WORKSPACE"
TRUST_FLAG = "--trust-workspace"
SOURCES_FLAG = "--setting-sources"
CONSENTING_SOURCES = ("project", "local")
"""The setting sources whose files are the workspace's: naming one of them consents to them."""
_TRUE = frozenset({"1", "true", "yes", "on"})


class Trust(Slotted):
    """The decision for one workspace, with the reason (for messages)."""

    __slots__ = ("answered", "consent", "problems", "reason", "recordable", "trusted")
    trusted: Final[bool]
    reason: Final[str]
    answered: Final[bool]
    """Whether the user has answered for this workspace (yes or no): the REPL asks only when
    nobody has."""
    recordable: Final[bool]
    """False for the home directory and above: an answer there holds for one session only."""
    problems: Final[tuple[str, ...]]
    """Files of answers that exist but could not be read (their answers do not count)."""
    consent: Final[str | None]
    """The flag that trusts it for this run only, where nothing else would (said at start)."""

    def __init__(
        self,
        trusted: bool,
        reason: str,
        answered: bool = False,
        recordable: bool = True,
        problems: tuple[str, ...] = (),
        consent: str | None = None,
    ) -> None:
        self.trusted = trusted
        self.reason = reason
        self.answered = answered
        self.recordable = recordable
        self.problems = problems
        self.consent = consent


def workspace_trust(
    workspace: Path,
    *,
    tether_home: Path,
    user_home: Path,
    env: Mapping[str, str],
    flag: bool = False,
    sources: Collection[str] | None = None,
) -> Trust:
    """Whether `workspace` is trusted, and why (see the module's docstring). `sources`: the
    setting sources named on the command line (None: not named)."""
    found = _recorded_trust(
        workspace, tether_home=tether_home, user_home=user_home, env=env, flag=flag
    )
    named = [s for s in CONSENTING_SOURCES if s in (sources or ())]
    if found.trusted or not named:
        return found
    consent = f"{SOURCES_FLAG} {','.join(named)}"
    return Trust(
        True,
        f"{consent} (for this run)",
        answered=True,
        recordable=found.recordable,
        problems=found.problems,
        consent=consent,
    )


def _recorded_trust(
    workspace: Path,
    *,
    tether_home: Path,
    user_home: Path,
    env: Mapping[str, str],
    flag: bool,
) -> Trust:
    recordable = can_record(workspace, user_home)
    if flag:
        return Trust(True, TRUST_FLAG, answered=True, recordable=recordable)
    if env.get(TRUST_ENV, "").strip().lower() in _TRUE:
        return Trust(True, f"{TRUST_ENV}={env[TRUST_ENV]}", answered=True, recordable=recordable)
    real = _real(workspace)
    problems: list[str] = []
    # tether records nothing for the home directory and above: an old answer there is not read.
    ours = _read_records(tether_home / TRUST_FILE, problems) if recordable else {}
    theirs = _claude_code_records(_claude_file(user_home, env), problems)
    home = _real(user_home)
    found = tuple(problems)
    for directory in (real, *real.parents):
        exact = directory == real
        if not exact and (directory == home or directory in home.parents):
            break  # the home directory and above trust only themselves
        answer = ours.get(directory)
        if answer is None and theirs.get(directory):
            answer = True
            source = "Claude Code's trust"
        else:
            source = "your answer"
        if answer is None or (not exact and not answer):
            continue
        where = "" if exact else f" for {directory}"
        if answer:
            reason = f"trusted by {source}{where}"
            return Trust(True, reason, answered=exact, recordable=recordable, problems=found)
        return Trust(False, "you answered no", answered=True, problems=found)
    return Trust(False, "not trusted yet", recordable=recordable, problems=found)


def can_record(workspace: Path, user_home: Path) -> bool:
    """Whether an answer for `workspace` is kept: not for the home directory or above it."""
    real = _real(workspace)
    home = _real(user_home)
    return not (real == home or real in home.parents)


def untrusted_notice(skipped: str, trust: Trust) -> str:
    """The one warning of a session in an untrusted workspace: what was left out, and the ways
    to allow it that work here."""
    if not trust.recordable:
        how = (
            "the home directory and the folders above it are trusted one session at a time: "
            f"answer yes when tether asks, or pass {TRUST_FLAG}"
        )
    elif trust.answered:
        how = f"you answered no; run `tether trust` here to trust it, or pass {TRUST_FLAG}"
    else:
        how = f"run `tether trust` here (or tether, to be asked) to trust it, or pass {TRUST_FLAG}"
    return f"the workspace is not trusted: skipped {skipped}; {how}"


def consent_notice(trust: Trust) -> str | None:
    """The start-up line of a run trusted only by its `--setting-sources` (None otherwise)."""
    if trust.consent is None:
        return None
    return (
        f"the workspace is not trusted; {trust.consent} consents to its files for this run: "
        "its hooks, settings and MCP servers are loaded as Claude Code loads them"
    )


def record_trust(workspace: Path, trusted: bool, *, tether_home: Path, user_home: Path) -> bool:
    """Remember the user's answer for `workspace`; False when it is not kept (in the home
    directory or above, an answer holds for this session only). Answers of other processes
    are kept: the file is read and replaced under a lock."""
    real = _real(workspace)
    if not can_record(workspace, user_home):
        return False
    path = tether_home / TRUST_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        data = _read_json(path)
        workspaces = data.get("workspaces")
        table = cast(dict[str, Any], workspaces) if isinstance(workspaces, dict) else {}
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        table[str(real)] = {**_entry(table, real), "trusted": trusted, "answeredAt": now}
        _write_json(path, {**data, "version": 1, "workspaces": table})
    return True


def external_imports_answer(
    workspace: Path, *, tether_home: Path, user_home: Path, env: Mapping[str, str]
) -> bool | None:
    """Whether the user approved (True) or refused (False) the external instruction imports
    of `workspace`, or has not answered (None). tether's answer first, then Claude Code's."""
    real = _real(workspace)
    if can_record(workspace, user_home):
        workspaces = _read_json(tether_home / TRUST_FILE).get("workspaces")
        table = cast(dict[str, Any], workspaces) if isinstance(workspaces, dict) else {}
        answer = _entry(table, real).get(EXTERNAL_IMPORTS_KEY)
        if isinstance(answer, bool):
            return answer
    projects = _read_json(_claude_file(user_home, env)).get("projects")
    if isinstance(projects, dict):
        for key, entry in cast(dict[str, Any], projects).items():
            if (
                isinstance(entry, dict)
                and cast(dict[str, Any], entry).get(CLAUDE_EXTERNAL_IMPORTS_KEY) is True
                and _real(Path(key)) == real
            ):
                return True
    return None


def record_external_imports(
    workspace: Path, approved: bool, *, tether_home: Path, user_home: Path
) -> bool:
    """Remember the user's answer about `workspace`'s external instruction imports; False when
    it is not kept (the home directory and above, as for trust)."""
    if not can_record(workspace, user_home):
        return False
    real = _real(workspace)
    path = tether_home / TRUST_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):
        data = _read_json(path)
        workspaces = data.get("workspaces")
        table = cast(dict[str, Any], workspaces) if isinstance(workspaces, dict) else {}
        table[str(real)] = {**_entry(table, real), EXTERNAL_IMPORTS_KEY: approved}
        _write_json(path, {**data, "version": 1, "workspaces": table})
    return True


def _entry(table: Mapping[str, Any], real: Path) -> dict[str, Any]:
    entry = table.get(str(real))
    return dict(cast(dict[str, Any], entry)) if isinstance(entry, dict) else {}


def remembered_settings(tether_home: Path, workspace: Path) -> Path:
    """The settings file with the user's own answers for `workspace`: readable (a slug of the
    real path) and unambiguous (a hash of it: `/a/b-c` and `/a/b/c` have the same slug)."""
    real = str(_real(workspace))
    slug = re.sub(r"[^A-Za-z0-9]", "-", real)[-80:]
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return tether_home / REMEMBERED_DIR / f"{slug}-{digest}.json"


def anchored_rule(rule: str, workspace: Path) -> str:
    """A rule as the remembered file keeps it: a project-relative path pattern (`Edit(/src/**)`,
    relative to the project in a project's settings file) made absolute (`Edit(//ws/src/**)`),
    as the remembered file lives outside the project."""
    match = re.fullmatch(r"([A-Za-z][A-Za-z0-9_]*)\((/[^/].*|/)\)", rule.strip())
    if match is None:
        return rule
    tool, pattern = match.groups()
    if tool == "Bash" or tool.startswith("mcp__"):
        return rule  # command patterns are not paths
    base = _real(workspace).as_posix().rstrip("/")
    return f"{tool}(/{base}{pattern})"


def _read_records(path: Path, problems: list[str]) -> dict[Path, bool]:
    workspaces = _read_json(path, problems).get("workspaces")
    if not isinstance(workspaces, dict):
        return {}
    records: dict[Path, bool] = {}
    for key, entry in cast(dict[str, Any], workspaces).items():
        if isinstance(entry, dict):
            value = cast(dict[str, Any], entry).get("trusted")
            if isinstance(value, bool):
                records[Path(key)] = value
    return records


def _claude_code_records(path: Path, problems: list[str]) -> dict[Path, bool]:
    """Claude Code's accepted trust dialogs, by real path (its keys are the paths as typed)."""
    projects = _read_json(path, problems).get("projects")
    if not isinstance(projects, dict):
        return {}
    accepted: dict[Path, bool] = {}
    for key, entry in cast(dict[str, Any], projects).items():
        if (
            isinstance(entry, dict)
            and cast(dict[str, Any], entry).get("hasTrustDialogAccepted") is True
        ):
            accepted[_real(Path(key))] = True
    return accepted


def _claude_file(user_home: Path, env: Mapping[str, str]) -> Path:
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    return (Path(config_dir) if config_dir else user_home) / ".claude.json"


def _read_json(path: Path, problems: list[str] | None = None) -> dict[str, Any]:
    """The object a file holds; an absent, unreadable or broken file holds no answers (so a
    workspace is asked about again, never trusted by accident), and says so in `problems`."""
    try:
        if path.name == ".claude.json":  # read once per change, shared (and frozen)
            data = read_claude_state(path) or {}
        else:
            text = read_text_file(path, limit_bytes=DEFAULT_LIMIT_BYTES)
            data = bounded_json.loads(text) if text and text.strip() else {}
    except UnreadableFile as e:
        why = f"it {e.reason}"
    except ValueError as e:
        why = f"it is not valid JSON ({e})"
    else:
        if isinstance(data, dict):
            return cast(dict[str, Any], data)
        why = "it does not hold a JSON object"
    if problems is not None:
        problems.append(f"the trust answers in {path} do not count: {why}")
    return {}


def _write_json(path: Path, data: Mapping[str, Any]) -> None:
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def _locked(path: Path) -> Generator[None]:
    """An exclusive lock beside the file, held while it is read and replaced."""
    import fcntl

    from tether.file_locks import flock

    with open(path.with_name(path.name + ".lock"), "a") as lock:
        if not flock(lock.fileno(), fcntl.LOCK_EX, what=f"the changes to {path}"):
            yield
            return
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _real(path: Path) -> Path:
    try:
        return path.expanduser().resolve()
    except (OSError, RuntimeError):
        return path.absolute()
