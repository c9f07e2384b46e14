"""The Task tool over the wire: the main agent starts subagents; only their answers come back."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from tether.agents import AgentCatalog, AgentDefinition
from tether.agents.builtin import BUILTIN_AGENTS
from tether.protocol import TextBlock, TurnFinished, Usage
from tether.testing import (
    FakeModelServer,
    RecordedRequest,
    ToolCallPart,
    Turn,
    http_error,
    reply,
    text,
    tool_use,
)

from .conftest import MAIN, MakeHarness, Router, requests_of, who

FOOTER = r"\[{agent} subagent: {calls} tool calls?, [\d,]+ tokens, \d+\.\d s\]"


def task(prompt: str, subagent_type: str = "general-purpose", **extra: str) -> ToolCallPart:
    return tool_use(
        "Task", description="a small job", prompt=prompt, subagent_type=subagent_type, **extra
    )


def tool_use_ids(request: RecordedRequest) -> set[str]:
    return {
        block["id"]
        for message in request.messages()
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    }


def usage_of(requests: list[RecordedRequest]) -> Usage:
    total = Usage()
    for request in requests:
        assert request.usage is not None
        total = total + Usage(**request.usage)
    return total


async def test_only_the_final_text_and_a_summary_reach_the_parent(
    fake_model: FakeModelServer, harness: MakeHarness, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\nthree\n")
    router = Router()
    router.add(MAIN, reply(task("count-lines of notes.txt")), reply(text("It has 3 lines.")))
    router.add(
        "count-lines",
        reply(text("Let me look."), tool_use("Bash", command="wc -l < notes.txt")),
        reply(tool_use("Read", file_path="notes.txt")),
        reply(text("notes.txt has 3 lines.")),
    )
    router.install(fake_model)
    run = harness()

    events = await run.turn("how long is notes.txt?")

    assert isinstance(events[-1], TurnFinished)
    assert events[-1].result == "It has 3 lines."
    routes = [MAIN, "count-lines"]
    parent, child = (
        requests_of(fake_model, MAIN, routes),
        requests_of(fake_model, "count-lines", routes),
    )
    assert (len(parent), len(child)) == (2, 3)
    [result] = parent[1].tool_results()
    assert re.fullmatch(
        "notes.txt has 3 lines.\n\n" + FOOTER.format(agent="general-purpose", calls=2), result
    ), result
    assert child[1].tool_results() == ["3"]
    # Nothing of the subagent's work is in any request of the parent.
    child_ids = set().union(*(tool_use_ids(r) for r in child))
    assert len(child_ids) == 2
    for request in parent:
        sent = json.dumps(request.body)
        assert not any(call_id in sent for call_id in child_ids)
        assert "Let me look." not in sent
        assert "one\\ntwo" not in sent
    # The subagent's prompt: its definition, then the environment; not tether's own.
    system = child[0].system()
    assert system.startswith(BUILTIN_AGENTS[0].system_prompt.rstrip())
    assert f"- Workspace root: {workspace.resolve()}" in system
    assert child[0].tool_names() == [
        n for n in parent[0].tool_names() if n != "Skill"
    ]  # everything but Skill, Task included (one level below the limit of two)
    # Usage and cost of the subagent alone are reported, once. The cost is its calls' prices
    # added up, the price of their usage added up: equal but for the float sums' rounding
    # (which the token counts decide, and they vary with the length of the temporary paths).
    [(usage, cost)] = run.usage
    expected = usage_of(child)  # the counts the fake server recorded (not its cache split)
    counted = ("input_tokens", "output_tokens", "cache_creation_input_tokens")
    counted += ("cache_read_input_tokens",)
    assert [getattr(usage, k) for k in counted] == [getattr(expected, k) for k in counted]
    assert usage.ephemeral_5m_input_tokens == usage.cache_creation_input_tokens  # all 5m here
    assert cost == pytest.approx(run.session.agent.price(usage), rel=1e-12)
    assert cost > 0
    # Its transcript went to its journal, which was closed.
    [journal] = run.journals
    assert journal.closed
    assert [kind for kind, _ in journal.entries] == ["user", "assistant"] * 3
    assert journal.entries[0][1] == (TextBlock(text="count-lines of notes.txt"),)


async def test_three_tasks_in_one_response_run_side_by_side(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    everyone_asked = threading.Barrier(3, timeout=20)

    def after_all_three_asked(answer: str) -> Turn:
        def wait(request: RecordedRequest) -> Turn:
            everyone_asked.wait()  # raises (and fails the test) unless all three overlap
            return reply(text(answer))

        return wait

    router = Router()
    router.add(MAIN, reply(task("job-a"), task("job-b"), task("job-c")), reply(text("all done")))
    for name in ("job-a", "job-b", "job-c"):
        router.add(name, after_all_three_asked(f"{name} finished"))
    router.install(fake_model)
    run = harness()

    events = await run.turn("do three things")

    assert isinstance(events[-1], TurnFinished)
    assert events[-1].result == "all done"
    results = requests_of(fake_model, MAIN, [MAIN, "job-a", "job-b", "job-c"])[1].tool_results()
    assert [r.split("\n\n")[0] for r in results] == [
        "job-a finished",
        "job-b finished",
        "job-c finished",
    ]
    assert len(run.usage) == 3


async def test_a_cap_of_one_runs_them_one_after_another(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    routes = [MAIN, "job-a", "job-b", "job-c"]
    router = Router()
    router.add(MAIN, reply(task("job-a"), task("job-b"), task("job-c")), reply(text("all done")))
    for name in routes[1:]:
        router.add(name, reply(tool_use("Bash", command="true")), reply(text(f"{name} done")))
    router.install(fake_model)
    run = harness(max_concurrent=1)

    await run.turn("do three things")

    order = [sender for sender in _senders(fake_model, routes) if sender != MAIN]
    # Each subagent's two requests are next to each other: none started before another ended.
    assert [order[i] for i in range(0, 6, 2)] == [order[i] for i in range(1, 6, 2)]
    assert sorted(order) == ["job-a", "job-a", "job-b", "job-b", "job-c", "job-c"]


def _senders(server: FakeModelServer, routes: list[str]) -> list[str]:
    return [who(r, routes) for r in server.requests]


async def test_depth_limit_takes_task_away(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    routes = [MAIN, "outer-job", "inner-job"]
    router = Router()
    router.add(MAIN, reply(task("outer-job")), reply(text("done")))
    router.add("outer-job", reply(task("inner-job")), reply(text("outer answer")))
    router.add("inner-job", reply(text("inner answer")))
    router.install(fake_model)
    run = harness(max_depth=2)

    await run.turn("go deep")

    outer = requests_of(fake_model, "outer-job", routes)
    inner = requests_of(fake_model, "inner-job", routes)
    assert "Agent" in outer[0].tool_names()
    assert {"Agent", "Task"}.isdisjoint(inner[0].tool_names())
    [inner_result] = outer[1].tool_results()
    assert inner_result.startswith("inner answer\n\n[general-purpose subagent: 0 tool calls")
    [outer_result] = requests_of(fake_model, MAIN, routes)[1].tool_results()
    assert outer_result.startswith("outer answer\n\n[general-purpose subagent: 1 tool call,")
    assert len(run.usage) == 2  # each subagent reports its own usage


async def test_depth_limit_of_one_offers_no_task_to_subagents(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    router = Router()
    router.add(MAIN, reply(task("flat-job")), reply(text("done")))
    router.add("flat-job", reply(text("flat answer")))
    router.install(fake_model)
    run = harness(max_depth=1)

    await run.turn("go")

    [child] = requests_of(fake_model, "flat-job", [MAIN, "flat-job"])
    assert {"Agent", "Task"}.isdisjoint(child.tool_names())
    assert "Agent" in fake_model.requests[0].tool_names()


async def test_unknown_subagent_type_is_an_error_naming_the_types(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    fake_model.script(reply(task("x", subagent_type="Wizard")), reply(text("ok")))
    run = harness()

    await run.turn("go")

    assert fake_model.requests[1].tool_results() == [
        "Error: Unknown subagent_type 'Wizard'. Available types: Explore, general-purpose, Plan."
    ]
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert run.usage == []
    assert run.journals == []


async def test_extra_task_fields_are_refused(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    fake_model.script(reply(task("x", model="opus")), reply(text("ok")))
    harness_run = harness()

    await harness_run.turn("go")

    assert fake_model.requests[1].tool_results() == [
        "Error: Invalid input for Task: unexpected field 'model'"
    ]


async def test_read_only_agent_runs_in_plan_mode(
    fake_model: FakeModelServer, harness: MakeHarness, workspace: Path
) -> None:
    router = Router()
    router.add(MAIN, reply(task("look-around", subagent_type="Explore")), reply(text("done")))
    router.add(
        "look-around",
        reply(
            tool_use("Write", file_path="new.txt", content="x"),
            tool_use("Bash", command="echo x > out.txt"),
            tool_use("Bash", command="ls"),
        ),
        reply(text("I only looked.")),
    )
    router.install(fake_model)
    run = harness(mode="bypassPermissions")  # the parent may do anything; Explore may not

    await run.turn("look")

    routes = [MAIN, "look-around"]
    first, second = requests_of(fake_model, "look-around", routes)
    assert first.tool_names() == ["Bash", "Read", "Glob", "Grep"]
    write, redirect, listing = second.tool_results()
    assert second.tool_result_errors() == [True, True, False]
    assert "plan mode" in write
    assert "plan mode" in redirect
    assert "new.txt" not in listing
    assert not (workspace / "new.txt").exists()
    assert not (workspace / "out.txt").exists()


async def test_the_parents_deny_rules_hold_in_the_subagent(
    fake_model: FakeModelServer, harness: MakeHarness, workspace: Path
) -> None:
    (workspace / "keep.txt").write_text("precious")
    router = Router()
    router.add(MAIN, reply(task("clean-up")), reply(text("done")))
    router.add("clean-up", reply(tool_use("Bash", command="rm keep.txt")), reply(text("could not")))
    router.install(fake_model)
    run = harness(settings={"permissions": {"deny": ["Bash(rm *)"]}})

    await run.turn("clean up")

    [denied] = requests_of(fake_model, "clean-up", [MAIN, "clean-up"])[1].tool_results()
    assert denied.startswith("Permission denied (rule Bash(rm *))")
    assert (workspace / "keep.txt").read_text() == "precious"


async def test_a_subagent_that_hits_its_turn_limit_is_an_error_with_its_text(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    catalog = AgentCatalog(
        (AgentDefinition("brief", "Stops early.", "You are brief.\n", max_turns=1),)
    )
    router = Router()
    router.add(MAIN, reply(task("short-job", subagent_type="brief")), reply(text("oh well")))
    router.add("short-job", reply(text("Starting on it."), tool_use("Bash", command="true")))
    router.install(fake_model)
    run = harness(catalog=catalog)

    await run.turn("go")

    follow_up = requests_of(fake_model, MAIN, [MAIN, "short-job"])[1]
    assert follow_up.tool_results() == [
        "Error: The brief subagent stopped before finishing: it reached its limit of 1 model "
        "calls. Its last text was:\nStarting on it."
    ]
    assert len(run.usage) == 1
    assert run.journals[0].closed


async def test_a_model_error_in_the_subagent_is_a_tool_error(
    fake_model: FakeModelServer, harness: MakeHarness
) -> None:
    router = Router()
    router.add(MAIN, reply(task("doomed-job")), reply(text("it failed")))
    router.add("doomed-job", http_error(400, "bad request for the subagent"))
    router.install(fake_model)
    run = harness()

    events = await run.turn("go")

    assert isinstance(events[-1], TurnFinished)
    assert events[-1].result == "it failed"
    [error] = requests_of(fake_model, MAIN, [MAIN, "doomed-job"])[1].tool_results()
    assert error.startswith("Error: The general-purpose subagent failed: ")
    assert "bad request for the subagent" in error
    assert error.endswith("It wrote no text.")
    assert run.usage == [(Usage(), 0.0)]
