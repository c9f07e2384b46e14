"""What the user adds to a message at the prompt, as Claude Code adds it: `@path` mentions
(the file read with the Read tool, its call and result joining the message) and `!command`
(run with the Bash tool, the command and its output joining the conversation as the user's
own context for the next message).

Both go through the session's gate as a model's call would: deny rules and PreToolUse hooks
apply, the Bash tool's sandbox runs the command. The user typing it is the approval an ask
rule would seek, so nothing is asked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document


def shell_context(command: str, output: str, failed: bool) -> str:
    """A `!command` and its output as the user's context, in Claude Code's tags."""
    stream = "bash-stderr" if failed else "bash-stdout"
    return f"<bash-input>{command}</bash-input>\n<{stream}>{output}</{stream}>"


class MentionCompleter(Completer):
    """Completes the path after `@` from the files under the directory the REPL works in."""

    def __init__(self, base: Callable[[], Path]) -> None:
        self.base = base

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        word = document.get_word_before_cursor(WORD=True)
        if not word.startswith("@"):
            return
        typed = word[1:].replace("\\ ", " ")
        folder, _, stem = typed.rpartition("/")
        directory = self.base() / folder if folder else self.base()
        try:
            entries = sorted(directory.iterdir(), key=lambda p: p.name)
        except OSError:
            return
        for entry in entries:
            if not entry.name.startswith(stem) or (entry.name.startswith(".") and not stem):
                continue
            shown = f"{folder}/{entry.name}" if folder else entry.name
            suffix = "/" if entry.is_dir() else ""
            yield Completion(
                f"@{shown}{suffix}".replace(" ", "\\ "),
                start_position=-len(word),
                display=entry.name + suffix,
            )


class SlashCompleter(Completer):
    """Completes a command typed at the start of the prompt (`/` then its first letters): the
    built-in commands, then the session's skills, custom and plugin commands and MCP prompts
    (`names`, once the session is built), each with its description."""

    def __init__(self, names: Callable[[], Iterable[tuple[str, str]]]) -> None:
        self.names = names

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        typed = document.text_before_cursor
        if not typed.startswith("/") or any(c.isspace() for c in typed):
            return
        for name, about in self.names():
            if name.startswith(typed):
                yield Completion(name, start_position=-len(typed), display_meta=about)
