"""A tool result read from the prompt cache in later requests is charged as a cache read:
checked request by request against the usage the fake server reported from its own prompt
cache (no usage scripted), its blocks placed as the server counted them."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.prompt_cache import anthropic_blocks
from tether.testing.tokens import CHARS_PER_TOKEN

from .conftest import rows

Run = Callable[..., CliResult]
_KINDS = ("cache_read_tokens", "cache_write_tokens", "input_tokens")


def _billed_as(request: RecordedRequest) -> dict[str, int]:
    """Each tool result of `request` and the range the server billed it in wholly (0 cache
    read, 1 cache write, 2 plain), its blocks placed by the server's own count."""
    usage = request.usage
    assert usage is not None
    read = usage["cache_read_input_tokens"]
    cached = read + usage["cache_creation_input_tokens"]
    kinds: dict[str, int] = {}
    chars = 0
    for block in anthropic_blocks(request.body):
        start = chars // CHARS_PER_TOKEN
        chars += block.chars
        end = chars // CHARS_PER_TOKEN
        if '"type":"tool_result"' not in block.canonical:
            continue
        call_id = block.canonical.split('"tool_use_id":"')[1].split('"')[0]
        kind = 0 if end <= read else 1 if start >= read and end <= cached else 2
        assert kind < 2 or start >= cached, f"{call_id} across a cache edge: {request.usage}"
        kinds[call_id] = kind
    return kinds


def test_a_result_read_from_the_cache_in_later_requests_is_charged_as_cache_reads(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # A large result, then small ones: each is written to the cache by the request that
    # first sends it and read from it by every request after (the prompt's own overhead,
    # after the newest breakpoint, is the plain input).
    (workspace / "a.txt").write_text("alpha " * 3000)
    fake_model.script(
        reply(tool_use("Bash", command="cat a.txt")),
        reply(tool_use("Bash", command="echo hi")),
        reply(tool_use("Bash", command="echo ho")),
        reply(tool_use("Bash", command="echo hu")),
        reply(text("done")),
    )
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr

    sizes = {  # the ledger's estimate of each result: its content's characters over 4
        f"toolu_{n}": math.ceil(len(fake_model.requests[n].tool_results()[0]) / 4)
        for n in range(1, 5)
    }
    expected = {call_id: [0, 0, 0] for call_id in sizes}
    for request in fake_model.requests:
        for call_id, kind in _billed_as(request).items():
            expected[call_id][kind] += sizes[call_id]
    found = {row["call_id"]: [row[kind] for kind in _KINDS] for row in rows("tool_calls")}
    assert found == expected
    # The case reported: the small results, read from the cache later, charged as such.
    assert all(found[call_id][0] > 0 for call_id in ("toolu_1", "toolu_2", "toolu_3"))
    assert all(found[call_id][2] == 0 for call_id in sizes)
