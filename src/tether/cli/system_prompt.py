"""A session's system prompt, made from its parts (instructions, skills, memory, the sandbox's
limits, the options' own text) for the tools it has: again whenever one part changes (the
instructions once external imports are approved, the tools as MCP servers connect)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tether.cli.client_parts import appended
from tether.cli.instruction_imports import ProjectInstructions
from tether.cli.run_options import RunOptions
from tether.core.context import build_system_prompt, prompt_parts
from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.agents.runner import SubagentRunner
    from tether.cli.output_styles import OutputStyle
    from tether.config.instructions import Instructions
    from tether.core.loop import Agent


class SystemPrompt(Slotted):
    __slots__ = (
        "cwd",
        "instructions",
        "memory",
        "opts",
        "sandbox",
        "skills",
        "style",
        "workspace",
    )
    workspace: Final[Path]
    cwd: Final[Path]
    opts: Final[RunOptions]
    instructions: Final[ProjectInstructions]
    skills: Final[str]
    """The skills' section ("" without skills)."""
    memory: Final[str]
    sandbox: Final[str]
    """The sandbox's limits, described ("" without a sandbox)."""
    style: Final[OutputStyle | None]
    """The output style the settings chose (None: the default)."""

    def __init__(
        self,
        workspace: Path,
        cwd: Path,
        opts: RunOptions,
        instructions: ProjectInstructions,
        skills: str,
        memory: str,
        sandbox: str,
        style: OutputStyle | None = None,
    ) -> None:
        self.workspace = workspace
        self.cwd = cwd
        self.opts = opts
        self.instructions = instructions
        self.skills = skills
        self.memory = memory
        self.sandbox = sandbox
        self.style = style

    def text(self, tool_names: Sequence[str]) -> str:
        return build_system_prompt(
            self.workspace,
            tool_names=tool_names,
            append=appended(self.opts.append_system_prompt, self.opts.json_schema),
            instructions=self.instructions.current.text,
            skills=self.skills,
            memory=self.memory,
            sandbox=self.sandbox,
            base=self.opts.system_prompt,
            cwd=self.cwd,
            style=self.style.section() if self.style is not None else "",
            coding=self.style.keep_coding if self.style is not None else True,
        )

    def follow_instructions(self, agent: Agent, runner: SubagentRunner) -> None:
        """When the instructions change (external imports approved, a file edited), the
        agent's prompt and its subagents' instructions change with them."""

        def changed(read: Instructions) -> None:
            runner.instructions = read.text
            agent.system_prompt = self.text(agent.tools.names())
            agent.system_parts = self.parts()

        self.instructions.on_change.append(changed)

    def parts(self) -> tuple[tuple[str, int], ...]:
        """Each part's size, for what fills the window (`/context`)."""
        memory_part = (".tether/memory.md", self.memory)
        sizes = self.instructions.current.sizes
        return prompt_parts(sizes, memory=memory_part, skills=self.skills)
