"""Output styles as Claude Code has them: the `outputStyle` setting names one of the built-in
styles (Default, Explanatory, Learning) or a Markdown file in `~/.claude/output-styles/` or the
project's `.claude/output-styles/` (front matter `name`, `description`,
`keep-coding-instructions`; the file's name when it has no `name`). The chosen style goes at
the end of the system prompt as Claude Code puts it (`# Output Style: NAME`, then its text), the
prompt's first line says the model answers in that style, and a custom style leaves out the
coding instructions unless `keep-coding-instructions` is true. `/output-style [NAME]` lists the
styles or saves the choice in `.claude/settings.local.json`, as Claude Code does; like Claude
Code, the prompt is read once, so the choice applies from `/clear` or the next session."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from tether.skills.frontmatter import FrontMatterError, parse_optional
from tether.slotted import Slotted

DEFAULT = "default"
STYLE_DIR = Path(".claude") / "output-styles"


class OutputStyle(Slotted):
    __slots__ = ("body", "description", "keep_coding", "name", "source")
    name: Final[str]
    description: Final[str]
    body: Final[str]
    keep_coding: Final[bool]
    """Whether tether's own coding instructions stay in the prompt."""
    source: Final[Path | None]
    """The file it was read from (None for a built-in style)."""

    def __init__(
        self, name: str, description: str, body: str, keep_coding: bool, source: Path | None
    ) -> None:
        self.name = name
        self.description = description
        self.body = body
        self.keep_coding = keep_coding
        self.source = source

    def section(self) -> str:
        """What goes at the end of the system prompt, in Claude Code's words."""
        return f"# Output Style: {self.name}\n{self.body.strip()}"


BUILTIN = (
    OutputStyle(
        "Explanatory",
        "Explains its implementation choices and the codebase's patterns",
        "You help the user with software engineering tasks and, along the way, teach them about "
        "the codebase.\n\nBe clear and educational while staying on the task: before and after "
        "writing code, give a short insight on the choices made, set off as\n"
        '"`★ Insight ─────────────────────────────────────`\n[2-3 key points]\n'
        '`─────────────────────────────────────────────────`"\n\n'
        "Insights belong in the conversation, never in the code. Prefer points specific to this "
        "codebase and the code just written over general programming advice.",
        True,
        None,
    ),
    OutputStyle(
        "Learning",
        "Learn by doing: asks you to write small, meaningful pieces of code yourself",
        "You help the user with software engineering tasks and help them learn the codebase "
        "by hands-on practice.\n\nBe collaborative and encouraging. Do the routine work "
        "yourself; for a meaningful design decision (a few lines of business logic, an error "
        "handling strategy, a choice between approaches), prepare the surrounding code, mark "
        "the spot with a `TODO(human)` comment and ask the user to write it, saying what it "
        "should do and what to weigh. Share short insights on the choices made, as the "
        "Explanatory style does.",
        True,
        None,
    ),
)


def discover(workspace: Path, user_home: Path) -> dict[str, OutputStyle]:
    """Every style by name: the built-in ones, then the user's files, then the project's (a
    later one of the same name wins, as a project's setting wins over the user's)."""
    styles = {style.name: style for style in BUILTIN}
    for folder in (user_home / STYLE_DIR, workspace / STYLE_DIR):
        for path in sorted(folder.glob("*.md")) if folder.is_dir() else ():
            style = _read(path)
            if style is not None:
                styles[style.name] = style
    return styles


def chosen(
    settings: Mapping[str, Any], workspace: Path, user_home: Path
) -> tuple[OutputStyle | None, str | None]:
    """The style `outputStyle` names (None for the default), and a warning when it names none."""
    value = settings.get("outputStyle")
    if value is None or (isinstance(value, str) and value.strip().lower() == DEFAULT):
        return None, None
    styles = discover(workspace, user_home)
    if isinstance(value, str):
        found = find(styles, value)
        if found is not None:
            return found, None
    known = ", ".join(["default", *styles])
    return None, (
        f"Setting outputStyle: no output style is named {json.dumps(value)} (known: {known}); "
        "using the default."
    )


def find(styles: Mapping[str, OutputStyle], name: str) -> OutputStyle | None:
    """The style of that name, exactly, else ignoring case."""
    name = name.strip()
    if name in styles:
        return styles[name]
    return next((s for n, s in styles.items() if n.lower() == name.lower()), None)


def save_choice(workspace: Path, name: str) -> Path:
    """Keep `outputStyle` in the project's `.claude/settings.local.json`, everything else the
    file holds as it was; `ConfigError` when that file is not a JSON object."""
    from tether.cli.permissions_edit import update_settings

    path = workspace / ".claude" / "settings.local.json"
    update_settings(path, lambda data: data.__setitem__("outputStyle", name))
    return path


def _read(path: Path) -> OutputStyle | None:
    try:
        document = parse_optional(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, FrontMatterError):
        return None
    meta = document.metadata
    name = meta.get("name")
    description = meta.get("description")
    keep = meta.get("keep-coding-instructions")
    return OutputStyle(
        str(name).strip() if name is not None and str(name).strip() else path.stem,
        str(description) if description is not None else "",
        document.body,
        keep is True or (isinstance(keep, str) and keep.strip().lower() == "true"),
        path,
    )
