"""Splitting a SKILL.md into its YAML front matter and its Markdown body.

The YAML parser costs more to import (about 15 ms) than the rest of skill discovery, and every
session reads tether's own skills before its first request; their front matter, parsed ahead
(`KNOWN_FRONT_MATTER`, kept current by a test), is looked up by its text instead.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from tether.skills.frontmatter_lines import read_key_value_lines
from tether.slotted import Slotted

if TYPE_CHECKING:
    import yaml

_FENCE = "---"
_YAML_END = "..."

KNOWN_FRONT_MATTER = Path(__file__).parent / "builtin" / "front_matter.json"
"""The front matter of the skills shipped with tether, parsed: `{sha256 of its text: mapping}`."""


class FrontMatterError(ValueError):
    """The file has no front matter, or front matter that is not a YAML mapping."""


class Document(Slotted):
    """A parsed SKILL.md: front matter keys, and the body with the front matter removed."""

    __slots__ = ("body", "metadata")
    metadata: Final[dict[str, Any]]
    body: Final[str]

    def __init__(self, metadata: dict[str, Any], body: str) -> None:
        self.metadata = metadata
        self.body = body


def parse_document(text: str) -> Document:
    """Split `text` at its `---` fences and parse the front matter with a YAML parser (unless it
    is one of `KNOWN_FRONT_MATTER`); front matter that is not valid YAML is read as `key: value`
    lines, as Claude Code reads it.

    Raises FrontMatterError with a reason fit to show the skill's author.
    """
    source, body = split_front_matter(text)
    known = _known_front_matter().get(front_matter_key(source))
    metadata = json.loads(known) if known is not None else _parse_yaml(source)
    return Document(_without_empty(metadata), body)


def parse_optional(text: str) -> Document:
    """`parse_document` for a file whose front matter Claude Code does not require (a skill, a
    command): one that does not start with a `---` line is all body, with no keys."""
    if not text.removeprefix("\ufeff").startswith(_FENCE):
        return Document({}, text.removeprefix("\ufeff"))
    return parse_document(text)


def _without_empty(metadata: dict[str, Any]) -> dict[str, Any]:
    """The keys that hold something: `model:` with nothing after it (YAML's null, or an empty
    string when read as `key: value` lines) is as if the key were absent, as Claude Code reads
    an agent's, a skill's or a command's front matter (`model:` inherits, `tools: ""` is every
    tool, `description:` falls back to the body's first line)."""
    return {
        key: value
        for key, value in metadata.items()
        if value is not None and not (isinstance(value, str) and not value.strip())
    }


def first_line(body: str) -> str:
    """What Claude Code describes a skill by when its front matter does not: the first line of
    its body with text, without a heading's `#`s."""
    for line in body.splitlines():
        text = line.strip().lstrip("#").strip()
        if text:
            return text
    return ""


def split_front_matter(text: str) -> tuple[str, str]:
    """(the front matter's text, the body after it); FrontMatterError when there is none."""
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
    return "".join(lines[1:end]), "".join(lines[end + 1 :]).lstrip("\n")


def front_matter_key(source: str) -> str:
    """How `KNOWN_FRONT_MATTER` names a front matter: the digest of its text."""
    return hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()


@functools.cache
def _known_front_matter() -> dict[str, str]:
    """Each known front matter's mapping as JSON text (decoded afresh for each caller)."""
    try:
        table = json.loads(KNOWN_FRONT_MATTER.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a damaged install parses its own skills, as any others
        return {}
    if not isinstance(table, dict):
        return {}
    return {str(key): json.dumps(value) for key, value in cast(dict[str, Any], table).items()}


def _parse_yaml(source: str) -> dict[str, Any]:
    """The front matter's YAML as a mapping with string keys; FrontMatterError if it is not one."""
    import yaml  # only for front matter not known ahead: start-up with tether's own skills only

    try:
        loaded = yaml.safe_load(source)
    except yaml.YAMLError as exc:
        # Claude Code reads such front matter as `key: value` lines; so does tether.
        loaded = read_key_value_lines(source)
        if not loaded:
            raise FrontMatterError(
                f"the front matter is not valid YAML: {_describe(exc)}"
            ) from None
    except RecursionError:  # the YAML composer recurses once per level of nesting
        raise FrontMatterError("the front matter nests too deeply to be read") from None
    if loaded is None:
        loaded = {}
    if not isinstance(loaded, dict):
        raise FrontMatterError("the front matter must be a YAML mapping of keys to values")
    return {str(key): value for key, value in loaded.items()}


def _describe(exc: yaml.YAMLError) -> str:
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        # The front matter starts on the file's second line.
        line = exc.problem_mark.line + 2
        return f"{exc.problem or exc.context or 'syntax error'} (line {line} of the file)"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
