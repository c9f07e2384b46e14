"""What a hook that went on in the background (`async`, `asyncRewake`, or one that printed
`{"async": true}` first) says once it ends, as Claude Code delivers it: the `systemMessage` and
`additionalContext` of its JSON answer reach the model with its next request (a reminder each;
its decisions are moot, the action it was fired for having gone ahead); an `asyncRewake` hook
that exits with code 2 wakes the model with its stderr (its stdout when stderr is empty), at
once when a turn runs and as a turn of its own when none does. A hook that timed out or failed
to run says nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # loaded with the hooks' runner, as `command.py` is: with a hook only
    from tether.hooks.command import HookRun
    from tether.hooks.spec import HookSpec

REWAKE_EXIT_CODE = 2


class LateOutput:
    """The background hooks' words not yet delivered: `take` the context for the model's next
    request; each rewake message goes to every waker (the front end steers or starts a turn)."""

    def __init__(self) -> None:
        self._context: list[str] = []
        self.wakers: list[Callable[[str], None]] = []
        """Given each rewake message: a front end queues it for the running turn, or starts a
        turn with it."""

    def landed(self, spec: HookSpec, run: HookRun) -> None:
        """A background hook ended as `run`: keep what it says for the model."""
        if run.failure is not None or run.exit_code is None:
            return
        if spec.async_rewake and run.exit_code == REWAKE_EXIT_CODE:
            said = run.stderr.strip() or run.stdout.strip()
            text = (
                f"{spec.event} hook (run in the background) exited with code 2: "
                f"{said or 'it gave no reason'}"
            )
            for wake in self.wakers:
                wake(text)
            return
        if run.exit_code != 0:
            return
        answer = late_answer(run.stdout)
        if answer is None:
            return
        message = answer.get("systemMessage")
        if isinstance(message, str) and message.strip():
            self._context.append(f"{spec.event} hook says: {message.strip()}")
        specific = answer.get("hookSpecificOutput")
        added = (
            cast(dict[str, Any], specific).get("additionalContext")
            if isinstance(specific, dict)
            else None
        )
        if isinstance(added, str) and added.strip():
            self._context.append(f"{spec.event} hook additional context: {added}")

    def take(self) -> list[str]:
        """The context kept since the last take, oldest first."""
        taken, self._context = self._context, []
        return taken


def late_answer(stdout: str) -> dict[str, Any] | None:
    """A background hook's JSON answer, as Claude Code finds it: the output when it is one JSON
    object, else its first line that is; never the `{"async": true}` it may have begun with."""
    text = stdout.strip()
    candidates = [text, *(line.strip() for line in text.splitlines())]
    for candidate in candidates:
        if not candidate.startswith("{"):
            continue
        try:
            parsed = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(parsed, dict) and "async" not in parsed:
            return cast(dict[str, Any], parsed)
    return None
