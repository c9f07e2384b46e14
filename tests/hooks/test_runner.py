"""Firing events at real hook processes: what they read, what their exit codes and output mean."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from tether.hooks import HookOutcome, HookRunner, parse_hooks
from tether.slotted import replaced

from .conftest import MakeRunner, Script
from .helpers import command_hook, on, process_gone, wait_until

TOOL_CALL = {
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la"},
    "tool_use_id": "toolu_01",
}


async def test_the_hook_reads_the_payload_on_stdin_and_the_project_dir_in_its_env(
    make_runner: MakeRunner, script: Script, workspace: Path, tmp_path: Path
) -> None:
    dump = tmp_path / "dump.json"
    spy = script(
        "spy.py",
        f"""
        import json, os, sys
        names = ("CLAUDE_PROJECT_DIR", "TETHER_PROJECT_DIR")
        data = {{"stdin": json.load(sys.stdin), "cwd": os.getcwd(),
                 "env": {{k: os.environ.get(k) for k in names}}}}
        open({str(dump)!r}, "w").write(json.dumps(data))
        """,
    )
    runner = make_runner({"PreToolUse": on("Bash", command_hook(spy))}, permission_mode="plan")
    assert await runner.fire("PreToolUse", TOOL_CALL) == HookOutcome()
    assert json.loads(dump.read_text()) == {
        "stdin": {
            "session_id": "session-1",
            "transcript_path": str(workspace / "transcript.jsonl"),
            "cwd": str(workspace),
            "permission_mode": "plan",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la"},
            "tool_use_id": "toolu_01",
        },
        "cwd": str(workspace),
        "env": {"CLAUDE_PROJECT_DIR": str(workspace), "TETHER_PROJECT_DIR": str(workspace)},
    }


async def test_plain_stdout_of_user_prompt_submit_is_context(make_runner: MakeRunner) -> None:
    runner = make_runner({"UserPromptSubmit": on(None, command_hook("echo 'Today is Monday.'"))})
    outcome = await runner.fire("UserPromptSubmit", {"prompt": "what day is it?"})
    assert outcome == HookOutcome(
        additional_context=("Today is Monday.",), plain_context=("Today is Monday.",)
    )


async def test_plain_stdout_of_a_tool_hook_is_ignored(make_runner: MakeRunner) -> None:
    runner = make_runner({"PostToolUse": on("*", command_hook("echo formatted 1 file"))})
    assert await runner.fire("PostToolUse", TOOL_CALL) == HookOutcome()


async def test_exit_2_blocks_with_stderr_as_the_reason(make_runner: MakeRunner) -> None:
    runner = make_runner(
        {"PreToolUse": on("Bash", command_hook("echo ignored; echo 'no rm -rf' >&2; exit 2"))}
    )
    assert await runner.fire("PreToolUse", TOOL_CALL) == HookOutcome(
        # Claude Code's words: the command named, its stderr as written.
        blocked=True,
        reason="[echo ignored; echo 'no rm -rf' >&2; exit 2]: no rm -rf\n",
        permission_decision="deny",
    )


async def test_exit_2_of_session_start_has_nothing_to_block(make_runner: MakeRunner) -> None:
    runner = make_runner({"SessionStart": on("", command_hook("echo nope >&2; exit 2"))})
    assert await runner.fire("SessionStart", {"source": "startup"}) == HookOutcome(
        errors=('SessionStart hook "echo nope >&2; exit 2": nope',)
    )


async def test_exit_1_is_an_error_for_the_user_and_nothing_else(make_runner: MakeRunner) -> None:
    runner = make_runner({"PreToolUse": on("", command_hook("echo oops >&2; exit 1"))})
    assert await runner.fire("PreToolUse", TOOL_CALL) == HookOutcome(
        errors=('PreToolUse hook "echo oops >&2; exit 1" exited with status 1: oops',)
    )


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "permissionDecisionReason": "read-only command",
                }
            },
            HookOutcome(permission_decision="allow"),
        ),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "Use the Read tool instead",
                }
            },
            HookOutcome(
                blocked=True, reason="Use the Read tool instead", permission_decision="deny"
            ),
        ),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "ask",
                    "permissionDecisionReason": "touches the network",
                }
            },
            HookOutcome(permission_decision="ask", system_messages=("touches the network",)),
        ),
        (
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {"command": "ls -la --color=never"},
                    "additionalContext": "ls was rewritten",
                }
            },
            HookOutcome(
                permission_decision="allow",
                updated_input={"command": "ls -la --color=never"},
                additional_context=("ls was rewritten",),
            ),
        ),
        (
            {"decision": "block", "reason": "legacy block"},
            HookOutcome(blocked=True, reason="legacy block", permission_decision="deny"),
        ),
        ({"decision": "approve"}, HookOutcome(permission_decision="allow")),
        (
            {"continue": False, "stopReason": "Build is broken", "systemMessage": "stopping"},
            HookOutcome(stop=True, stop_reason="Build is broken", system_messages=("stopping",)),
        ),
        ({"systemMessage": "checked"}, HookOutcome(system_messages=("checked",))),
        ({"suppressOutput": True, "somethingNew": 1}, HookOutcome()),
    ],
)
async def test_json_decisions_of_pre_tool_use(
    make_runner: MakeRunner, script: Script, output: object, expected: HookOutcome
) -> None:
    hook = script("decide.py", f"import json; print(json.dumps({output!r}))")
    runner = make_runner({"PreToolUse": on("Bash", command_hook(hook))})
    if expected.system_messages:  # named as Claude Code names them to the user
        expected = replaced(expected, said_by="PreToolUse:Bash")
    assert await runner.fire("PreToolUse", TOOL_CALL) == expected


async def test_post_tool_use_block_and_context_go_to_the_model(
    make_runner: MakeRunner, script: Script
) -> None:
    hook = script(
        "lint.py",
        """
        import json
        print(json.dumps({"decision": "block", "reason": "lint failed: line 3",
                          "hookSpecificOutput": {"hookEventName": "PostToolUse",
                                                 "additionalContext": "ruff ran"}}))
        """,
    )
    runner = make_runner({"PostToolUse": on("Edit|Write", command_hook(hook))})
    payload = {**TOOL_CALL, "tool_name": "Write", "tool_response": {"success": True}}
    assert await runner.fire("PostToolUse", payload) == HookOutcome(
        blocked=True, reason="lint failed: line 3", additional_context=("ruff ran",)
    )


async def test_user_prompt_submit_json_context_and_block(
    make_runner: MakeRunner, script: Script
) -> None:
    context = script(
        "ctx.py",
        """
        import json
        out = {"hookEventName": "UserPromptSubmit", "additionalContext": "branch: main"}
        print(json.dumps({"hookSpecificOutput": out}))
        """,
    )
    block = script(
        "secret.py",
        """
        import json, sys
        if "sk-" in json.load(sys.stdin)["prompt"]:
            print(json.dumps({"decision": "block", "reason": "the prompt holds a key"}))
        """,
    )
    runner = make_runner({"UserPromptSubmit": on(None, command_hook(context), command_hook(block))})
    assert await runner.fire("UserPromptSubmit", {"prompt": "hello"}) == HookOutcome(
        additional_context=("branch: main",)
    )
    assert await runner.fire("UserPromptSubmit", {"prompt": "key sk-123"}) == HookOutcome(
        blocked=True, reason="the prompt holds a key", additional_context=("branch: main",)
    )


async def test_stop_hook_blocks_to_send_the_model_back(make_runner: MakeRunner) -> None:
    hook = """echo '{"decision": "block", "reason": "tests are failing"}'"""
    runner = make_runner({"Stop": on("ignored for Stop", command_hook(hook))})
    assert await runner.fire("Stop", {"stop_hook_active": False}) == HookOutcome(
        blocked=True, reason="tests are failing"
    )


async def test_permission_request_decision(make_runner: MakeRunner, script: Script) -> None:
    hook = script(
        "approve.py",
        """
        import json
        decision = {"behavior": "allow", "updatedInput": {"command": "ls"}}
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                                 "decision": decision}}))
        """,
    )
    runner = make_runner({"PermissionRequest": on("Bash", command_hook(hook))})
    assert await runner.fire("PermissionRequest", TOOL_CALL) == HookOutcome(
        permission_decision="allow", updated_input={"command": "ls"}
    )


@pytest.mark.parametrize(
    ("stdout", "error"),
    [
        ("{not json", "printed output that is not a JSON object: {not json"),
        ("[1, 2]", "printed output that is not a JSON object: [1, 2]"),
        (
            '{"hookSpecificOutput": {"permissionDecision": "maybe"}}',
            'printed invalid hook output: hookSpecificOutput.permissionDecision must be "allow", '
            '"deny" or "ask", not \'maybe\'',
        ),
        ('{"continue": "no"}', 'printed invalid hook output: "continue" must be true or false'),
        (
            '{"hookSpecificOutput": {"hookEventName": "PostToolUse"}}',
            "printed invalid hook output: hookSpecificOutput.hookEventName is 'PostToolUse', "
            "not 'PreToolUse'",
        ),
    ],
)
async def test_garbage_output_is_reported_and_ignored(
    make_runner: MakeRunner, script: Script, stdout: str, error: str
) -> None:
    hook = script("garbage.py", f"print({stdout!r})")
    runner = make_runner({"PreToolUse": on("*", command_hook(hook))})
    outcome = await runner.fire("PreToolUse", TOOL_CALL)
    assert outcome.errors[0].startswith("PreToolUse hook ")
    assert error in outcome.errors[0]
    assert outcome == HookOutcome(errors=outcome.errors)


async def test_garbage_output_of_a_fail_closed_hook_blocks(
    make_runner: MakeRunner, script: Script
) -> None:
    hook = script("garbage.py", "print('{oops')")
    runner = make_runner({"PreToolUse": on("*", command_hook(hook, failClosed=True))})
    outcome = await runner.fire("PreToolUse", TOOL_CALL)
    assert outcome.reason is not None
    assert outcome.reason.endswith(
        "printed output that is not a JSON object: {oops (the hook is fail-closed)"
    )
    assert outcome == HookOutcome(blocked=True, reason=outcome.reason, permission_decision="deny")


async def test_a_timed_out_hook_is_killed_with_its_process_group(
    make_runner: MakeRunner, workspace: Path
) -> None:
    pids = workspace / "pids"
    hook = "sleep 300 & echo $$ $! > pids; wait"
    runner = make_runner({"PreToolUse": on("", command_hook(hook, timeout=0.5))})
    outcome = await runner.fire("PreToolUse", TOOL_CALL)
    assert outcome == HookOutcome(errors=(f'PreToolUse hook "{hook}" timed out after 0.5 s',))
    shell, child = (int(pid) for pid in pids.read_text().split())
    assert wait_until(lambda: process_gone(shell) and process_gone(child))


@pytest.mark.parametrize(
    ("command", "timeout_s", "why"),
    [
        (
            f"{sys.executable} -c 'raise SystemExit(\"crashed\")'",
            10,
            "exited with status 1: crashed",
        ),
        ("sleep 30", 0.3, "timed out after 0.3 s"),
        ("./no-such-script.sh", 10, "exited with status 127: "),
        ("kill -SEGV $$", 10, "was killed by signal SIGSEGV"),
    ],
)
async def test_fail_closed_hooks_block_when_they_fail(
    make_runner: MakeRunner, command: str, timeout_s: float, why: str
) -> None:
    runner = make_runner(
        {"PreToolUse": on("Bash", command_hook(command, timeout=timeout_s, failClosed=True))}
    )
    outcome = await runner.fire("PreToolUse", TOOL_CALL)
    assert outcome.blocked
    assert outcome.reason is not None
    assert why in outcome.reason
    assert outcome.reason.endswith("(the hook is fail-closed)")
    assert outcome == HookOutcome(blocked=True, reason=outcome.reason, permission_decision="deny")


async def test_fail_closed_cannot_block_an_event_with_nothing_to_block(
    make_runner: MakeRunner,
) -> None:
    runner = make_runner({"SessionEnd": on("", command_hook("exit 1", failClosed=True))})
    assert await runner.fire("SessionEnd", {"reason": "other"}) == HookOutcome(
        errors=('SessionEnd hook "exit 1" exited with status 1',)
    )


async def test_matchers_pick_the_hooks_that_run(make_runner: MakeRunner) -> None:
    groups = [
        {"matcher": "Edit|Write", "hooks": [command_hook("echo edit-or-write")]},
        {"matcher": "mcp__.*", "hooks": [command_hook("echo mcp")]},
        {"matcher": "*", "hooks": [command_hook("echo star")]},
        {"matcher": "", "hooks": [command_hook("echo empty")]},
        {"hooks": [command_hook("echo none")]},
        {"matcher": "Bash", "hooks": [command_hook("echo bash")]},
    ]
    runner = make_runner({"UserPromptSubmit": on(None, command_hook("true")), "PreToolUse": groups})

    async def ran(tool: str) -> list[str]:
        payload = {"tool_name": tool, "tool_input": {}, "tool_use_id": "t"}
        return [s.command.removeprefix("echo ") for s in runner.matching("PreToolUse", payload)]

    assert await ran("Write") == ["edit-or-write", "star", "empty", "none"]
    assert await ran("mcp__github__create_issue") == ["mcp", "star", "empty", "none"]
    assert await ran("BashOutput") == ["star", "empty", "none"]
    assert await ran("Bash") == ["star", "empty", "none", "bash"]
    assert [s.command for s in runner.matching("PreToolUse", {}, "Edit")] == [
        "echo edit-or-write",
        "echo star",
        "echo empty",
        "echo none",
    ]


async def test_session_start_matches_its_source(make_runner: MakeRunner) -> None:
    runner = make_runner(
        {
            "SessionStart": [
                {"matcher": "startup", "hooks": [command_hook("echo fresh")]},
                {"matcher": "resume|compact", "hooks": [command_hook("echo again")]},
            ]
        }
    )
    assert await runner.fire("SessionStart", {"source": "startup"}) == HookOutcome(
        additional_context=("fresh",), plain_context=("fresh",)
    )
    assert await runner.fire("SessionStart", {"source": "compact"}) == HookOutcome(
        additional_context=("again",), plain_context=("again",)
    )


async def test_matching_hooks_run_in_parallel(make_runner: MakeRunner, script: Script) -> None:
    # Each hook waits for the other's marker: run one after the other, the first would give up.
    wait_for_other = script(
        "pair.py",
        """
        import pathlib, sys, time
        me, other = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
        me.touch()
        deadline = time.monotonic() + 20
        while not other.exists():
            if time.monotonic() > deadline:
                sys.exit("the other hook never started")
            time.sleep(0.01)
        print(f"{me.name} saw {other.name}")
        """,
    )
    a, b = "marker-a", "marker-b"
    runner = make_runner(
        {
            "UserPromptSubmit": on(
                None,
                command_hook(f"{wait_for_other} {a} {b}", timeout=60),
                command_hook(f"{wait_for_other} {b} {a}", timeout=60),
            )
        }
    )
    assert await runner.fire("UserPromptSubmit", {"prompt": "go"}) == HookOutcome(
        additional_context=("marker-a saw marker-b", "marker-b saw marker-a"),
        plain_context=("marker-a saw marker-b", "marker-b saw marker-a"),
    )


async def test_outcomes_combine_in_configuration_order(
    make_runner: MakeRunner, script: Script
) -> None:
    def pre_tool_use(decision: str, command: str) -> str:
        output = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": decision,
                "updatedInput": {"command": command},
                "additionalContext": f"{decision} says hi",
            }
        }
        return script(f"{decision}.py", f"import json; print(json.dumps({output!r}))")

    runner = make_runner(
        {
            "PreToolUse": on(
                "Bash",
                command_hook(pre_tool_use("allow", "first")),
                command_hook(pre_tool_use("ask", "second")),
                command_hook("echo 'not here' >&2; exit 2"),
                command_hook("echo 'nor here' >&2; exit 2"),
                command_hook("echo broken >&2; exit 1"),
            )
        }
    )
    assert await runner.fire("PreToolUse", TOOL_CALL) == HookOutcome(
        blocked=True,
        reason="[echo 'nor here' >&2; exit 2]: nor here\n",  # the last block, as Claude Code
        permission_decision="deny",
        updated_input={"command": "second"},
        additional_context=("allow says hi", "ask says hi"),
        errors=('PreToolUse hook "echo broken >&2; exit 1" exited with status 1: broken',),
    )


async def test_the_same_command_configured_twice_runs_once(
    make_runner: MakeRunner, tmp_path: Path
) -> None:
    count = tmp_path / "count"
    hook = f"echo x >> {count}"
    runner = make_runner(
        {"Stop": [{"hooks": [command_hook(hook)]}, {"hooks": [command_hook(hook)]}]}
    )
    assert runner.has("Stop")
    assert not runner.has("PreToolUse")
    assert await runner.fire("Stop", {"stop_hook_active": False}) == HookOutcome()
    assert count.read_text() == "x\n"


async def test_cancelling_fire_stops_every_hook(make_runner: MakeRunner, tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    hook = f"sleep 300 & echo $! >> {pids}; wait"
    runner = make_runner({"Stop": on(None, command_hook(hook), command_hook(hook + " "))})
    firing = asyncio.create_task(runner.fire("Stop", {"stop_hook_active": False}))
    await asyncio.to_thread(
        wait_until, lambda: pids.exists() and len(pids.read_text().split()) == 2
    )
    firing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await firing
    children = [int(pid) for pid in pids.read_text().split()]
    assert wait_until(lambda: all(process_gone(pid) for pid in children))


async def test_a_hook_that_does_not_read_a_large_input_is_fine(make_runner: MakeRunner) -> None:
    runner = make_runner({"PreToolUse": on("Write", command_hook("exit 0"))})
    payload = {"tool_name": "Write", "tool_input": {"content": "x" * 1_000_000}, "tool_use_id": "t"}
    assert await runner.fire("PreToolUse", payload) == HookOutcome()


async def test_a_daemon_started_by_a_hook_does_not_hold_it_up(
    make_runner: MakeRunner, tmp_path: Path
) -> None:
    pid_file = tmp_path / "daemon"
    # The daemon keeps stdout open; the hook is done when its own process exits.
    hook = f"sleep 300 & echo $! > {pid_file}; echo started"
    runner = make_runner({"SessionStart": on("", command_hook(hook, timeout=60))})
    try:
        assert await runner.fire("SessionStart", {"source": "startup"}) == HookOutcome(
            additional_context=("started",), plain_context=("started",)
        )
    finally:
        os.kill(int(pid_file.read_text()), 9)


async def test_children_that_ignore_sigterm_are_killed_too(
    make_runner: MakeRunner, workspace: Path
) -> None:
    hook = "trap '' TERM; (trap '' TERM; sleep 300) & echo $! > child; wait"
    runner = make_runner({"Stop": on(None, command_hook(hook, timeout=0.3))})
    outcome = await runner.fire("Stop", {"stop_hook_active": False})
    assert outcome == HookOutcome(errors=outcome.errors)
    assert outcome.errors[0].endswith('..." timed out after 0.3 s')
    child = int((workspace / "child").read_text())
    assert wait_until(lambda: process_gone(child))


async def test_a_hook_that_cannot_start_is_a_failure(workspace: Path) -> None:
    specs = parse_hooks(
        [
            (
                workspace / "s.json",
                {"hooks": {"Stop": on(None, command_hook("true", failClosed=True))}},
            )
        ]
    )
    runner = HookRunner(
        specs,
        session_id="s",
        transcript_path="t",
        cwd=workspace / "gone",
        project_dir=workspace,
        permission_mode=lambda: "default",
    )
    outcome = await runner.fire("Stop", {})
    assert outcome == HookOutcome(
        blocked=True,
        reason='Stop hook "true" could not start: No such file or directory '
        "(the hook is fail-closed)",
    )


async def test_a_json_block_of_session_start_is_an_error(
    make_runner: MakeRunner, workspace: Path
) -> None:
    output = {"decision": "block", "reason": "no", "systemMessage": "hi"}
    (workspace / "out.json").write_text(json.dumps(output))
    runner = make_runner({"SessionStart": on("", command_hook("cat out.json"))})
    assert await runner.fire("SessionStart", {"source": "startup"}) == HookOutcome(
        system_messages=("hi",),
        said_by="SessionStart:startup",
        errors=('SessionStart hook "cat out.json": no',),
    )
