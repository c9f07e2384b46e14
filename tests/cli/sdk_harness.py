"""Running the real Claude Agent SDK with tether as its CLI, over the wire, in tests.

`SdkRun` builds `ClaudeAgentOptions` pointing at the installed `tether` launcher (the SDK
spawns it as it would Claude Code) and records every line tether writes, so that a test can
check them against the SDK's own parser.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, Message, ResultMessage, query
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport
from claude_agent_sdk.types import _configure_can_use_tool  # pyright: ignore[reportPrivateUsage]


def tether_launcher() -> str:
    """The `tether` command installed beside this interpreter."""
    found = Path(sys.executable).with_name("tether")
    if found.exists():
        return str(found)
    which = shutil.which("tether")
    assert which is not None, "the tether command is not installed"
    return which


class RecordingTransport(SubprocessCLITransport):
    """The SDK's own subprocess transport, keeping each line the CLI wrote."""

    def __init__(self, prompt: Any, options: ClaudeAgentOptions) -> None:
        super().__init__(prompt, options)
        self.lines: list[dict[str, Any]] = []

    async def _read_messages_impl(self) -> AsyncIterator[dict[str, Any]]:  # type: ignore[override]
        async for line in super()._read_messages_impl():
            self.lines.append(line)
            yield line


@dataclass
class SdkRun:
    workspace: Path
    home: Path
    stderr: list[str] = field(default_factory=list[str])
    transports: list[RecordingTransport] = field(default_factory=list[RecordingTransport])

    def options(self, **overrides: Any) -> ClaudeAgentOptions:
        env = {"HOME": str(self.home), **overrides.pop("env", {})}
        return ClaudeAgentOptions(
            cli_path=tether_launcher(),
            cwd=str(self.workspace),
            env=env,
            stderr=self.stderr.append,
            **overrides,
        )

    async def query(self, prompt: str, **overrides: Any) -> list[Message]:
        options = self.options(**overrides)
        transport = self._transport(prompt, options)
        return [m async for m in query(prompt=prompt, options=options, transport=transport)]

    async def stream(self, prompt: str, **overrides: Any) -> AsyncIterator[Message]:
        """`query`, message by message (for a run that ends by raising)."""
        options = self.options(**overrides)
        transport = self._transport(prompt, options)
        async for message in query(prompt=prompt, options=options, transport=transport):
            yield message

    def client(self, **overrides: Any) -> ClaudeSDKClient:
        options = self.options(**overrides)
        return ClaudeSDKClient(options, transport=self._transport(None, options))

    def _transport(self, prompt: Any, options: ClaudeAgentOptions) -> RecordingTransport:
        # The SDK prepares its options (`can_use_tool` asks over stdio) before it makes its own
        # transport; one made here gets them prepared the same way.
        transport = RecordingTransport(prompt, _configure_can_use_tool(options))
        self.transports.append(transport)
        return transport

    def lines(self) -> list[dict[str, Any]]:
        """Every line tether wrote, in every run of this test."""
        return [line for t in self.transports for line in t.lines]

    def assert_lines_parse(self) -> None:
        """Every line but the control protocol's is one the SDK's parser reads."""
        for line in self.lines():
            if line["type"] in ("control_request", "control_response", "control_cancel_request"):
                continue
            assert parse_message(line) is not None, line


def result_of(messages: list[Any]) -> ResultMessage:
    """The one result among an SDK run's messages (a run that gave none or two fails)."""
    results = [m for m in messages if isinstance(m, ResultMessage)]
    assert len(results) == 1, messages
    return results[0]
