"""Every flag the Claude Agent SDK can pass is accepted without an "unknown option" warning:
read from the installed SDK's own command builder, so that a new SDK release that passes a new
flag fails here first. Claude Code's diagnostic flags (`--debug-to-stderr`, `--debug [filter]`)
pass in silence; the real SDK over the wire."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import claude_agent_sdk
import pytest

from tests.cli.sdk_harness import SdkRun, result_of
from tether.cli.app import build_parser
from tether.cli.claude_flags import (
    CLAUDE_SWITCHES,
    CLAUDE_VALUE_FLAGS,
    QUIET_OPTIONAL_VALUE,
    QUIET_SWITCHES,
    QUIET_VALUE_FLAGS,
)
from tether.testing import FakeModelServer, reply, text

_BUILDER = Path(claude_agent_sdk.__file__).parent / "_internal" / "transport" / "subprocess_cli.py"


def _flags_in_code(source: str) -> set[str]:
    """The `--flag`s the builder's code writes: its string constants, f-strings' literal
    parts included, and `--flag=` prefixes cut at the `=`; comments and docstrings, which
    quote flags for their reader (`"--flag=value"`), are not code."""
    tree = ast.parse(source)
    documented = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: set[str] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in documented
        ):
            found.update(re.findall(r"^(--[A-Za-z][A-Za-z0-9-]*)", node.value))
    return found


SDK_FLAGS = sorted(_flags_in_code(_BUILDER.read_text()))


def test_the_sdk_passes_flags_we_read() -> None:
    assert {"--input-format", "--system-prompt", "--permission-prompt-tool"} <= set(SDK_FLAGS)


@pytest.mark.parametrize("flag", SDK_FLAGS)
def test_every_flag_the_sdk_can_pass_is_accepted(flag: str) -> None:
    known = set(build_parser()._option_string_actions)  # pyright: ignore[reportPrivateUsage]
    accepted = (
        CLAUDE_VALUE_FLAGS | CLAUDE_SWITCHES | QUIET_VALUE_FLAGS | QUIET_SWITCHES
    ) | QUIET_OPTIONAL_VALUE
    assert flag in known | accepted


async def test_diagnostic_flags_pass_in_silence(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("answered")))
    extra: dict[str, str | None] = {
        "debug-to-stderr": None,
        "debug": "api,hooks",
        "await-initialize": None,
        "brand-new-flag": "its-value",
    }
    messages = await sdk.query("hi", extra_args=extra)
    assert result_of(messages).result == "answered"
    said = "\n".join(sdk.stderr)
    assert "unknown option --brand-new-flag" in said  # a flag nobody knows is still told
    for flag in ("--debug-to-stderr", "--debug ", "--await-initialize", "api,hooks"):
        assert flag not in said
