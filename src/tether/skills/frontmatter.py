"""Splitting a SKILL.md into its YAML front matter and its Markdown body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import yaml

_FENCE = "---"
_YAML_END = "..."


class FrontMatterError(ValueError):
    """The file has no front matter, or front matter that is not a YAML mapping."""


@dataclass(frozen=True)
class Document:
    """A parsed SKILL.md: front matter keys, and the body with the front matter removed."""

    metadata: dict[str, Any]
    body: str


def parse_document(text: str) -> Document:
    """Split `text` at its `---` fences and parse the front matter with a YAML parser.

    Raises FrontMatterError with a reason fit to show the skill's author.
    """
    lines = text.removeprefix("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].rstrip() != _FENCE:
        raise FrontMatterError("no front matter: the file must start with a '---' line")
    end = next(
        (
            index
            for index, line in enumerate(lines)
            if index and line.rstrip() in (_FENCE, _YAML_END)
        ),
        None,
    )
    if end is None:
        raise FrontMatterError("the front matter is not closed by a '---' line")
    source = "".join(lines[1:end])
    import yaml  # only once a skill file is read: start-up without skills does not pay for it

    try:
        loaded = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"the front matter is not valid YAML: {_describe(exc)}") from None
    except RecursionError:  # the YAML composer recurses once per level of nesting
        raise FrontMatterError("the front matter nests too deeply to be read") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise FrontMatterError("the front matter must be a YAML mapping of keys to values")
    metadata: dict[str, Any] = {str(key): value for key, value in loaded.items()}
    return Document(metadata, "".join(lines[end + 1 :]).lstrip("\n"))


def _describe(exc: yaml.YAMLError) -> str:
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        # The front matter starts on the file's second line.
        line = exc.problem_mark.line + 2
        return f"{exc.problem or exc.context or 'syntax error'} (line {line} of the file)"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
