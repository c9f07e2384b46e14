"""A PostToolUse hook's MCP tool result (`updatedMCPToolOutput`) read without the MCP SDK: a
well-formed one is what the model reads; a malformed one is refused, naming where it is wrong."""

from __future__ import annotations

import pytest

from tether.core.hook_output import Refused, replaced
from tether.hooks.spec import UpdatedOutput
from tether.tools.registry import ToolOutcome

OWN = ToolOutcome(content="the tool's own output", is_error=False)


def _replace(value: object) -> ToolOutcome:
    return replaced("mcp__net__fetch", OWN, UpdatedOutput("updatedMCPToolOutput", value))


def test_an_mcp_result_replaces_the_output() -> None:
    value = {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
    assert _replace(value) == ToolOutcome(content="a\nb", is_error=False)
    flagged = {"content": [{"type": "text", "text": "bad"}], "isError": True}
    assert _replace(flagged) == ToolOutcome(content="bad", is_error=True)


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ({"content": "text"}, "content: Input should be a valid list"),
        ({"content": [{"type": "text"}]}, "content.0.text: Field required"),
        ({"content": [{"text": "x"}]}, "content.0.type: Field required"),
        ({"content": [{"type": "image", "data": "AA=="}]}, "content.0.mimeType: Field required"),
        ({"content": [{"type": "video"}]}, "content.0.type: Input tag should be"),
        ({"content": [], "isError": "yes"}, "isError: Input should be a valid boolean"),
    ],
)
def test_a_malformed_mcp_result_is_refused_saying_where(value: object, why: str) -> None:
    with pytest.raises(Refused, match=r"^not an MCP tool result: ") as refused:
        _replace(value)
    assert why in str(refused.value)
