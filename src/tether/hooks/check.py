"""Checking configured hooks: a missing script found before running, then one run each with a
sample input of its event, reporting failures and output tether cannot read."""

from __future__ import annotations

import dataclasses
import re
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tether.hooks.command import HookRun
from tether.hooks.matcher import exact_names, matches
from tether.hooks.output import is_ignored_text, outcome_of
from tether.hooks.runner import HookRunner
from tether.hooks.spec import MATCH_FIELDS, HookEventName, HookOutcome, HookSpec

SAMPLE_SUBJECTS: dict[str, tuple[str, ...]] = {
    "tool_name": (
        "Bash",
        "Read",
        "Write",
        "Edit",
        "Glob",
        "Grep",
        "TodoWrite",
        "Task",
        "WebFetch",
        "BashOutput",
        "KillShell",
        "Revert",
        "mcp__sample__tool",
    ),
    "source": (
        "startup",
        "resume",
        "clear",
        "compact",
        "user_settings",
        "project_settings",
        "local_settings",
        "policy_settings",
        "skills",
    ),
    "reason": ("other", "clear", "resume", "logout", "prompt_input_exit"),
    "trigger": ("manual", "auto", "init", "maintenance"),
    "command_name": ("sample-command",),
    "error": ("rate_limit", "authentication_failed", "server_error", "unknown"),
    "load_reason": ("session_start", "nested_traversal", "path_glob_match", "include", "compact"),
    "file_path": (".envrc", ".env"),
    "notification_type": ("permission_prompt", "idle_prompt"),
    "agent_type": ("general-purpose", "Explore", "Plan"),
    "mcp_server_name": ("sample",),
}
"""Subjects tried, in order, to find one a hook's matcher accepts."""

_INTERPRETERS = frozenset(
    {"bash", "sh", "zsh", "dash", "python", "python3", "node", "deno", "bun", "ruby", "perl"}
)
_SHELL_WORDS = frozenset(
    {"echo", "printf", "true", "false", "exit", "cd", "test", "[", "[[", ":", "read", "export"}
    | {"if", "for", "while", "case", "{", "(", "!", "source", ".", "eval", "exec", "set"}
)
_VARIABLE = re.compile(r"\$(\w+)|\$\{(\w+)\}")


@dataclass(frozen=True)
class HookCheck:
    spec: HookSpec
    problems: tuple[str, ...] = ()
    """What is wrong: a missing script, a crash, a timeout, output tether cannot read."""
    run: HookRun | None = None
    """None when it was not run."""
    outcome: HookOutcome | None = None
    """What the run decided, as the session would see it."""
    notes: tuple[str, ...] = ()
    """Worth knowing, not wrong: the sample subject used, plain text the event ignores."""


NOT_RUN_ON_SAMPLES: frozenset[HookEventName] = frozenset({"WorktreeCreate", "WorktreeRemove"})
"""Events whose hooks act on the repository (a sample run would make a real worktree)."""


def missing_program(command: str, *, cwd: Path, env: Mapping[str, str]) -> str | None:
    """A script or program the command starts that does not exist, judged from its first
    words (an interpreter's script argument counts), or None when it looks runnable."""
    try:
        words = shlex.split(command)
    except ValueError as e:
        return f"cannot read the command line: {e}"
    while words and re.fullmatch(r"\w+=.*", words[0]):
        words = words[1:]
    if not words or words[0] in _SHELL_WORDS:
        return None
    words = [_expand(word, env) for word in words]
    program = words[0]
    if Path(program).name in _INTERPRETERS:
        if len(words) < 2 or words[1].startswith("-"):
            return None
        return _missing_file(words[1], cwd, must_execute=False)
    if "/" in program:
        return _missing_file(program, cwd, must_execute=True)
    if shutil.which(program, path=env.get("PATH")) is None:
        return f"command not found: {program}"
    return None


def sample_payload(spec: HookSpec, sample_dir: Path) -> tuple[dict[str, Any], str | None] | None:
    """An input for `spec`'s event that its matcher accepts, and the subject used; None when
    no sample subject matches the matcher."""
    field = MATCH_FIELDS.get(spec.event)
    subject: str | None = None
    if field is not None:
        candidates = exact_names(spec.matcher) or SAMPLE_SUBJECTS[field]
        subject = next((c for c in candidates if matches(spec.matcher, c)), None)
        if subject is None:
            return None
    return _payload(spec.event, subject, sample_dir), subject


async def check_hook(
    runner: HookRunner, spec: HookSpec, *, sample_dir: Path, run: bool
) -> HookCheck:
    """Check one hook; with `run`, also run it once on a sample input (unless its script is
    missing: that says it all)."""
    if spec.prompt is not None:
        kind = "agent" if spec.agent else "prompt"
        return HookCheck(spec, notes=(f"not run: a model judges a {kind} hook, in a session",))
    missing = (
        None
        if spec.url is not None
        else missing_program(spec.command, cwd=runner.cwd, env=runner.env)
    )
    if missing is not None:
        return HookCheck(spec, (missing,))
    if not run:
        return HookCheck(spec)
    if spec.event in NOT_RUN_ON_SAMPLES:
        return HookCheck(spec, notes=(f"not run: a {spec.event} hook makes or removes worktrees",))
    sample = sample_payload(spec, sample_dir)
    if sample is None:
        return HookCheck(spec, notes=(f"not run: no sample subject matches {spec.matcher!r}",))
    payload, subject = sample
    notes = [f"sample {MATCH_FIELDS[spec.event]}: {subject}"] if subject else []
    result = await runner.run(spec, runner.encode_input(spec.event, payload), background=False)
    if is_ignored_text(spec, result):
        notes.append(f"prints plain text, which {spec.event} ignores")
    # Read as fail-open too, so that a failure shows as the problem it is, not as a block.
    problems = outcome_of(dataclasses.replace(spec, fail_closed=False), result).errors
    return HookCheck(spec, problems, result, outcome_of(spec, result), tuple(notes))


def _payload(event: HookEventName, subject: str | None, sample_dir: Path) -> dict[str, Any]:
    tool = subject or "Bash"
    tool_call = {
        "tool_name": tool,
        "tool_input": _tool_input(tool, sample_dir),
        "tool_use_id": "toolu_hooks_check",
    }
    payloads: dict[HookEventName, dict[str, Any]] = {
        "PreToolUse": tool_call,
        "PermissionRequest": {
            "tool_name": tool,
            "tool_input": tool_call["tool_input"],
            "permission_suggestions": [],
        },
        "PostToolUse": {
            **tool_call,
            "tool_response": {
                "stdout": "sample output",
                "stderr": "",
                "interrupted": False,
                "isImage": False,
                "noOutputExpected": False,
            },
        },
        "PostToolUseFailure": {**tool_call, "error": "sample failure", "is_interrupt": False},
        "UserPromptSubmit": {"prompt": "tether hooks check: a sample prompt"},
        "PostToolBatch": {"tool_calls": [{**tool_call, "tool_response": "sample output"}]},
        "Stop": {"stop_hook_active": False, "last_assistant_message": "A sample answer."},
        "SubagentStop": {
            "stop_hook_active": False,
            "agent_id": "hookscheck0000000",
            "agent_type": subject,
            "agent_transcript_path": str(sample_dir / "agent-hookscheck0000000.jsonl"),
            "last_assistant_message": "A sample answer.",
        },
        "SubagentStart": {"agent_id": "hookscheck0000000", "agent_type": subject},
        "SessionStart": {"source": subject},
        "TaskCompleted": {
            "task_id": "1",
            "task_subject": "tether hooks check: a sample task",
            "task_description": "",
            "team_name": "default",
        },
        "TeammateIdle": {"teammate_name": "hooks-check", "team_name": "default"},
        "SessionEnd": {"reason": subject},
        "PreCompact": {"trigger": subject, "custom_instructions": ""},
        "PostCompact": {"trigger": subject, "compact_summary": "A sample summary."},
        "Notification": {
            "message": "tether hooks check: a sample notification",
            "notification_type": subject,
        },
        "Elicitation": {
            "mcp_server_name": subject,
            "message": "tether hooks check: a sample question",
            "mode": "form",
            "requested_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
        },
        "ElicitationResult": {"mcp_server_name": subject, "mode": "form", "action": "decline"},
        "WorktreeCreate": {"name": "hooks-check"},
        "WorktreeRemove": {"worktree_path": str(sample_dir / "hooks-check")},
        "UserPromptExpansion": {
            "expansion_type": "slash_command",
            "command_name": subject,
            "command_args": "",
            "command_source": "projectSettings",
            "prompt": "tether hooks check: a sample command's prompt",
        },
        "StopFailure": {"error": subject, "error_details": "a sample error"},
        "PermissionDenied": {**tool_call, "reason": "a sample denial"},
        "TaskCreated": {
            "task_id": "1",
            "task_subject": "tether hooks check: a sample task",
            "task_description": "",
            "team_name": "default",
        },
        "InstructionsLoaded": {
            "file_path": str(sample_dir / "CLAUDE.md"),
            "memory_type": "Project",
            "load_reason": subject,
        },
        "CwdChanged": {"old_cwd": str(sample_dir), "new_cwd": str(sample_dir / "sub")},
        "FileChanged": {"file_path": str(sample_dir / (subject or ".envrc")), "event": "change"},
        "ConfigChange": {"source": subject, "file_path": str(sample_dir / "settings.json")},
        "Setup": {"trigger": subject},
    }
    return payloads[event]


def _tool_input(tool: str, sample_dir: Path) -> dict[str, Any]:
    sample_file = str(sample_dir / "sample.txt")
    inputs: dict[str, dict[str, Any]] = {
        "Bash": {"command": "echo tether hooks check", "description": "A sample command"},
        "Read": {"file_path": sample_file},
        "Write": {"file_path": sample_file, "content": "sample\n"},
        "Edit": {"file_path": sample_file, "old_string": "sample", "new_string": "example"},
        "Revert": {"file_path": sample_file},
        "Glob": {"pattern": "*.txt", "path": str(sample_dir)},
        "Grep": {"pattern": "sample", "path": str(sample_dir)},
        "TodoWrite": {"todos": []},
        "Task": {"description": "sample", "prompt": "sample", "subagent_type": "Explore"},
        "WebFetch": {"url": "https://example.com", "prompt": "sample"},
    }
    return inputs.get(tool, {})


def _missing_file(word: str, cwd: Path, *, must_execute: bool) -> str | None:
    path = Path(word).expanduser()
    path = path if path.is_absolute() else cwd / path
    if not path.is_file():
        return f"missing script: {word}"
    if must_execute and not path.stat().st_mode & 0o111:
        return f"script is not executable: {word}"
    return None


def _expand(word: str, env: Mapping[str, str]) -> str:
    return _VARIABLE.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), word)
