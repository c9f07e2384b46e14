"""`/init`: the message that asks the model to study the repository and write its CLAUDE.md.

As in Claude Code, the file is the model's work, not a template: the message says what a good
one holds, and the model reads the repository with its tools and writes the file with Write (or
improves the one there with Edit), through the permission rules like any other change. The REPL
sends it as the user's message; `-p "/init"` too (`custom_commands.expand_slash_prompt`).
"""

from __future__ import annotations

from pathlib import Path

INIT_COMMAND = "/init"


def init_message(workspace: Path, args: str = "") -> str:
    """The message `/init` sends for the repository at `workspace`; `args`, when given, is
    what the user added (a focus), passed on."""
    target = workspace / "CLAUDE.md"
    text = f"""\
Please analyse this repository and write a CLAUDE.md file at {target}. It is given to future \
coding-agent sessions (Claude Code, tether and others) working in this repository, so it should \
hold what such a session needs and cannot see at a glance.

What to put in it:
1. The commands used most: how to build, lint, format and test, and how to run a single test.
2. The architecture at a high level: the parts of the code that take several files to \
understand, how they fit together, where to start reading.
3. The conventions a newcomer would get wrong: code style the tools do not enforce, layering \
rules, naming, how changes are tested and committed.

How:
- Read before writing: the README, the build and packaging files (pyproject.toml, \
package.json, Makefile, Cargo.toml...), the CI configuration, the source tree's layout, and any \
agent or editor rules (.cursor/rules/, .cursorrules, .github/copilot-instructions.md, \
AGENTS.md): carry over what matters in them.
- If a CLAUDE.md is already there, improve it (Edit) rather than starting again.
- Keep it short and specific to this repository: no generic advice (\"write tests\", \"handle \
errors\"), no list of every file, nothing you did not find in the repository.
- Start the file with:

# CLAUDE.md

This file provides guidance to coding agents when working with code in this repository.
"""
    extra = args.strip()
    return f"{text}\nThe user added: {extra}\n" if extra else text
