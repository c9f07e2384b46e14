"""Loading a skill's instructions when the model asks for them (progressive disclosure)."""

from __future__ import annotations

from tether.skills.arguments import fill_arguments
from tether.skills.catalog import Skill
from tether.skills.errors import SkillError
from tether.skills.frontmatter import FrontMatterError, parse_optional
from tether.text_files import UnreadableFile, cut_instructions, read_text_file

SKILL_DIR_PLACEHOLDER = "${CLAUDE_SKILL_DIR}"
"""Claude Code's name for the skill's directory inside its instructions."""
PLUGIN_ROOT_PLACEHOLDER = "${CLAUDE_PLUGIN_ROOT}"
"""A plugin's directory, in the instructions of its skills and commands."""


def load_skill_body(skill: Skill, args: str | None = None) -> str:
    """The skill's instructions, front matter removed, headed by the directory they live in.

    `args` are filled in as Claude Code fills them (`tether.skills.arguments`): `$ARGUMENTS`,
    `$ARGUMENTS[N]` and `$N`, or appended as `ARGUMENTS: ...` when the body names none.
    Raises SkillError when the file can no longer be read or parsed.
    """
    text: str | None = None
    try:
        text = read_text_file(skill.path)
    except UnreadableFile as exc:
        why = f"it {exc.reason}"
    else:
        why = "it no longer exists"
    if text is None:
        raise SkillError(f"Cannot read the skill {skill.name!r} at {skill.path}: {why}")
    try:
        body = parse_optional(text).body.rstrip()
    except FrontMatterError as exc:
        raise SkillError(f"The skill {skill.name!r} at {skill.path} is broken: {exc}") from None
    directory = skill.path.parent
    body = body.replace(SKILL_DIR_PLACEHOLDER, str(directory))
    if skill.plugin_root is not None:
        body = body.replace(PLUGIN_ROOT_PLACEHOLDER, str(skill.plugin_root))
    body = cut_instructions(body, str(skill.path))[0]  # as instruction files are, noted in it
    body = fill_arguments(body, args or "")
    header = (
        f'The skill "{skill.name}" is loaded; follow its instructions below.\n'
        f"Its directory is {directory}: files it mentions by relative path "
        "(scripts/, reference.md...) are there; Read them or run them from there when needed."
    )
    return f"{header}\n\n{body}\n"
