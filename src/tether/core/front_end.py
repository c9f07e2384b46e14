"""What a front end plugs into a session (`Session` inherits it): the callbacks it is told
through, the questions and commands it shows, what it says when the session starts."""

from __future__ import annotations

from collections.abc import Callable

from tether.core.commands import CommandInfo, PromptCommand
from tether.core.questions import StartupQuestion
from tether.protocol import Event
from tether.skills import SkillCatalog


class FrontEndHooks:
    """A session's surface for front ends, set by whoever builds or shows it."""

    def __init__(self) -> None:
        self.can_ask = False
        """Set by a front end that answers `PermissionAsked` (the REPL); otherwise an ask is
        a denial, reported in `TurnFinished.permission_denials`."""
        self.observers: list[Callable[[Event], None]] = []
        """Called with every event as it is emitted (the built-in event handlers)."""
        self.between_turns: list[Callable[[Event], None]] = []
        """Called with the events of background work (a subagent run in the background) that
        come while no turn runs; during a turn they are among its events."""
        self.prompt_kept: list[Callable[[], None]] = []
        """Called once a turn's prompt is in the history (its session file has it), before
        the model is asked: no event says so, and the next may come only with the reply."""
        self.prompt_withdrawn = False
        """The last turn's prompt was taken back out of the session (refused as too long
        before it was sent: nothing of it is saved), so a front end keeps its text."""
        self.commands: dict[str, PromptCommand] = {}
        """`/name args` commands, by name, filled in by preparations."""
        self.command_info: dict[str, CommandInfo] = {}
        """The custom commands among `commands` (the others are MCP servers' prompts): where
        each comes from and the model its front matter names."""
        self.startup_questions: list[StartupQuestion] = []
        """Yes/no questions for the user before the first turn (use this repository's MCP
        servers?); a front end that cannot ask leaves them to their defaults."""
        self.skills = SkillCatalog((), ())
        """The skills the session offers through its Skill tool (none when it has none)."""
        self.answer_checks: list[Callable[[], str | None]] = []
        """Asked when the model ends a turn: a message that sends it back to work because its
        answer is still owed in a form the client asked for (StructuredOutput), or None."""
        self.switch_model: Callable[[str | None], None] | None = None
        """Points the agent at another model (`SetModel`), given by whoever built the session
        (it knows the providers); None: the model cannot be switched."""
        self.resumed: str | None = None
        """How the session was resumed or forked (for the user), when it was."""
        self.startup_notices: list[str] = []
        """Said to the user when the session starts, every time (e.g. the sandbox cannot run)."""
        self.file_notices: set[str] = set()
        """Of those, what is said of the project's files (a skill, agent, command or plugin
        that cannot be used): a front end that builds sessions again in one process (the
        REPL's rewind, resume, /clear) says each once."""
        self.listings: list[Callable[[], str | None]] = []
        """What the model is told in a reminder with the next prompt whenever the
        conversation does not hold it as it is now (new, changed, or compacted away): the
        agent types, kept out of the tool descriptions so that the cached prefix stays."""
