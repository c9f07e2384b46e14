"""How well tether's requests use Anthropic prompt caching over a realistic session.

A scripted 60-request session (three user prompts of twenty model calls each) runs through
tether against the fake server, whose simulated prompt cache reports the usage the real API
would (token counts are the fake's estimate: four characters of JSON per token). The model
reads 200-line source files, runs a test command printing a few KB, and greps the tree.

Reported: (a) prefix reuse: for consecutive requests, the share of request i (in characters of
canonical JSON, `cache_control` stripped) that is an identical prefix of request i+1, mean and
minimum, target >= 0.99; (b) the share of input tokens read from cache, target >= 0.95;
(c) input cost in base-token units (input + 1.25 x cache writes + 0.1 x cache reads) and the
size of the first request split into system, tools and messages.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import tempfile
from pathlib import Path

from fake_env import fake_env
from tether.cli.setup import RunOptions, build_session
from tether.protocol import TurnFinished, UserInput
from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text, tool_use
from tether.testing.prompt_cache import PromptBlock, anthropic_blocks
from tether.testing.tokens import CHARS_PER_TOKEN

PROMPTS = (
    "The parser tests fail on nested lists; find out why.",
    "Now check the other modules for the same mistake.",
    "Summarise what you found and what should change.",
)
CALLS_PER_PROMPT = 20
MODULES = 6


def _source(module: int) -> str:
    """A 200-line Python module, different for each number."""
    lines = [
        f'"""Module {module}: parsing helpers."""',
        "",
        "from __future__ import annotations",
        "",
    ]
    function = 0
    while len(lines) < 200:
        function += 1
        lines += [
            f"def parse_item_{module}_{function}(tokens: list[str], depth: int = 0) -> list[Any]:",
            f'    """Parse one item at depth {{depth}} (helper {function} of module {module})."""',
            "    result: list[Any] = []",
            "    while tokens and tokens[0] != ']':",
            "        token = tokens.pop(0)",
            "        if token == '[':",
            f"            result.append(parse_item_{module}_{function}(tokens, depth + 1))",
            "        else:",
            "            result.append(token)",
            "    return result",
            "",
        ]
    return "\n".join(lines[:200]) + "\n"


def _test_log() -> str:
    """A few KB of test-runner output, a failure among passes."""
    lines = ["============================= test session starts =============================="]
    for index in range(40):
        lines.append(f"tests/test_parser.py::test_case_{index:03d} PASSED{'':20}[{index * 2:3d}%]")
    lines += [
        "tests/test_parser.py::test_nested_lists FAILED                            [ 82%]",
        "=================================== FAILURES ===================================",
        "____________________________ test_nested_lists _____________________________",
        "    def test_nested_lists() -> None:",
        ">       assert parse('[a [b c] d]') == ['a', ['b', 'c'], 'd']",
        "E       AssertionError: assert ['a', ['b', 'c', 'd']] == ['a', ['b', 'c'], 'd']",
        "tests/test_parser.py:88: AssertionError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_parser.py::test_nested_lists - AssertionError",
        "========================= 1 failed, 40 passed in 0.41s =========================",
    ]
    return "\n".join(lines) + "\n"


def _write_workspace(workspace: Path) -> None:
    (workspace / "src").mkdir()
    for module in range(MODULES):
        (workspace / "src" / f"parser_{module}.py").write_text(_source(module))
    (workspace / "test_output.log").write_text(_test_log())


def _call_for(index: int) -> Reply:
    """The model's turn for request `index`: a tool call, or a closing answer per prompt."""
    if index % CALLS_PER_PROMPT == CALLS_PER_PROMPT - 1:
        return reply(text(f"Done with part {index // CALLS_PER_PROMPT + 1}: the nested case."))
    step = index % 3
    note = text(f"Step {index}: looking further.")
    if step == 0:
        path = f"src/parser_{(index // 3) % MODULES}.py"
        return reply(note, tool_use("Read", file_path=path))
    if step == 1:
        return reply(note, tool_use("Bash", command="cat test_output.log"))
    return reply(note, tool_use("Grep", pattern=f"def parse_item_{index % MODULES}_", path="src"))


async def _run_session(server: FakeModelServer, workspace: Path, home: Path) -> None:
    def answer(request: RecordedRequest) -> Reply:
        return _call_for(request.index)

    server.script(*([answer] * (len(PROMPTS) * CALLS_PER_PROMPT)))
    session = build_session(
        RunOptions(
            cwd=workspace,
            env=fake_env(server, home),
            permission_mode="bypassPermissions",
        )
    )
    for prompt in PROMPTS:
        async for event in session.submit(UserInput(text=prompt)):
            if isinstance(event, TurnFinished) and event.is_error:
                raise RuntimeError(event.result)


def _shared_prefix_share(before: list[PromptBlock], after: list[PromptBlock]) -> float:
    """Share of `before` (by characters) that `after` repeats block for block from the start."""
    total = sum(b.chars for b in before)
    shared = 0
    for old, new in zip(before, after, strict=False):
        if old.canonical != new.canonical:
            break
        shared += old.chars
    return shared / total if total else 1.0


def _section_tokens(body: dict[str, object]) -> dict[str, float]:
    chars = {"tool": 0, "system": 0, "message": 0}
    for block in anthropic_blocks(body):
        chars[json.loads(block.canonical)[0]] += block.chars
    return {name: count / CHARS_PER_TOKEN for name, count in chars.items()}


def main() -> dict[str, float]:
    """Run the session and return the figures `report` prints."""
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        workspace, home = Path(tmp) / "ws", Path(tmp) / "home"
        workspace.mkdir()
        home.mkdir()
        _write_workspace(workspace)
        asyncio.run(_run_session(server, workspace, home))
        requests = list(server.requests)
    if any(r.status != 200 for r in requests):
        raise RuntimeError(f"the fake server refused a request: {requests[-1].error}")
    blocks = [anthropic_blocks(r.body) for r in requests]
    shares = [_shared_prefix_share(a, b) for a, b in itertools.pairwise(blocks)]
    usages = [r.usage or {} for r in requests]
    plain = sum(u.get("input_tokens", 0) for u in usages)
    written = sum(u.get("cache_creation_input_tokens", 0) for u in usages)
    read = sum(u.get("cache_read_input_tokens", 0) for u in usages)
    first = usages[0]
    sections = _section_tokens(requests[0].body)
    return {
        "requests": float(len(requests)),
        "prefix_reuse_mean": statistics.mean(shares),
        "prefix_reuse_min": min(shares),
        "cache_read_share": read / (plain + written + read),
        "input_tokens": float(plain),
        "cache_creation_tokens": float(written),
        "cache_read_tokens": float(read),
        "input_cost_units": plain + 1.25 * written + 0.1 * read,
        "first_request_tokens": float(sum(first.get(k, 0) for k in first if "input" in k)),
        "first_tools_tokens": sections["tool"],
        "first_system_tokens": sections["system"],
        "first_messages_tokens": sections["message"],
        "last_request_tokens": float(sum(v for k, v in usages[-1].items() if "input" in k)),
    }


def report(figures: dict[str, float]) -> None:
    """Print the figures of `main`."""
    count = int(figures["requests"])
    print(f"prompt caching over a scripted {count}-request session (fake server's estimate)")
    print(
        f"  prefix reuse, request i within i+1: mean {figures['prefix_reuse_mean']:.4f}, "
        f"min {figures['prefix_reuse_min']:.4f}  (target >= 0.99)"
    )
    print(
        f"  input read from cache: {figures['cache_read_share']:.1%}  (target >= 95%)"
        f"  [input {figures['input_tokens']:,.0f}, writes {figures['cache_creation_tokens']:,.0f},"
        f" reads {figures['cache_read_tokens']:,.0f} tokens]"
    )
    print(
        f"  input cost: {figures['input_cost_units']:,.0f} base-token units"
        " (input + 1.25 x writes + 0.1 x reads)"
    )
    print(
        f"  first request: {figures['first_request_tokens']:,.0f} tokens"
        f" (system {figures['first_system_tokens']:,.0f},"
        f" tools {figures['first_tools_tokens']:,.0f},"
        f" messages {figures['first_messages_tokens']:,.0f});"
        f" last request: {figures['last_request_tokens']:,.0f} tokens"
    )
    print("  (for comparison, Claude Code: 12.4k-token first request, ~90k units over 40 turns)")


if __name__ == "__main__":
    report(main())
