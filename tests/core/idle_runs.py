"""What the tests of the repeat guard's bounds share: the words its stop says, the CLI run
they drive, the model that reaches the fake server over a wire."""

from __future__ import annotations

from collections.abc import Callable

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
"""The `tether` fixture: the CLI run as a subprocess."""

IDLE = "looked at nothing new"
"""What a turn stopped for want of headway says."""


def wire_model(wire: str) -> list[str]:
    """The CLI arguments that reach the fake server over `wire` (Anthropic's by default)."""
    return ["--model", "openai/gpt-4.1"] if wire == "openai" else []


LONG_HUNT = 150
"""More calls than a stop's count of replies many times over: what a long hunt makes (a
hundred and fifty commits shown, issues fetched, pages of a log), each showing new content."""


def numbered_bash(fake_model: FakeModelServer, command: str, steps: int, last: str) -> list[int]:
    """Script the model to run `command` (its `{n}` the step's number) `steps` times, then
    answer `last`; the indexes of the requests it answered, for the test to count."""
    replies: list[int] = []

    def respond(request: RecordedRequest) -> Turn:
        replies.append(request.index)
        if len(replies) > steps:
            return text(last)
        return tool_use("Bash", command=command.format(n=len(replies)))

    fake_model.responder = respond
    return replies
