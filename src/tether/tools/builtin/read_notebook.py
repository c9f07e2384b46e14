"""Read of a Jupyter notebook (.ipynb): its cells rendered as Claude Code's Read renders them,
each as `<cell id="ID">source</cell id="ID">` followed by its outputs, with the pictures among
the outputs shown to the model as images. The ids shown are the ones NotebookEdit takes."""

from __future__ import annotations

import base64
import binascii
import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tether.protocol import Base64ImageSource, ImageBlock, ImageMediaType, ToolError
from tether.tools.base import ToolOutput
from tether.tools.builtin.files import human_size
from tether.tools.builtin.read_image import MAX_IMAGE_BYTES

MAX_NOTEBOOK_BYTES = 32 << 20
"""A larger .ipynb file is shown as text, a window of lines at a time."""
OUTPUT_CHARS_PER_CELL = 10_000
"""The text a cell's outputs show (Claude Code's limit); the rest is cut from the middle."""
_HEAD_CHARS = 6_000
_IMAGE_TYPES: tuple[ImageMediaType, ...] = ("image/png", "image/jpeg")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
"""Colour codes in tracebacks: noise to the model."""


USE_NOTEBOOK_EDIT = "File is a Jupyter Notebook. Use the NotebookEdit to edit this file."
"""Edit's refusal of a notebook, in Claude Code's words."""


def is_notebook(path: Path) -> bool:
    """Whether the file is a Jupyter notebook by its name, as Read, Edit and NotebookEdit
    decide it."""
    return path.suffix.lower() == ".ipynb"


class NotANotebook(ValueError):
    """The file is not a notebook this reader can render (the reason is the message)."""


def parse_notebook(data: bytes) -> tuple[list[dict[str, Any]], str]:
    """The cells of a notebook and its language; NotANotebook says why when it is not one."""
    try:
        notebook = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise NotANotebook(f"it is not valid JSON ({e})") from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list) or not all(_is_cell(c) for c in cells):  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        raise NotANotebook(
            'its top-level "cells" is not a list of cells each with a string or list source'
        )
    metadata = notebook.get("metadata")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    info = metadata.get("language_info") if isinstance(metadata, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    language = info.get("name") if isinstance(info, dict) else None  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return cells, language if isinstance(language, str) else "python"  # pyright: ignore[reportUnknownVariableType]


def _is_cell(cell: object) -> bool:
    if not isinstance(cell, dict):
        return False
    source = cell.get("source")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return isinstance(source, str) or (
        isinstance(source, list) and all(isinstance(s, str) for s in source)  # pyright: ignore[reportUnknownVariableType]
    )


def cell_id(cell: dict[str, Any], index: int) -> str:
    """The id NotebookEdit knows the cell by: its own, or `cell-N` for a cell without one."""
    own = cell.get("id")
    return own if isinstance(own, str) and own else f"cell-{index}"


@dataclass
class _Render:
    shown: str
    language: str
    max_chars: int
    parts: list[str] = field(default_factory=lambda: [])
    chars: int = 0
    images: list[ImageBlock] = field(default_factory=lambda: [])
    image_bytes: int = 0
    cells: list[dict[str, Any]] = field(default_factory=lambda: [])


def render_notebook(
    data: bytes, shown: str, file_path: str, first: int, limit: int | None, max_chars: int
) -> ToolOutput:
    """The cells `first` (1-based) onwards, at most `limit` of them and about `max_chars` of
    text; the result says which cells are left and how to read them."""
    cells, language = parse_notebook(data)
    total = len(cells)
    if total == 0:
        return ToolOutput(
            f"(the notebook {shown} has no cells)",
            structured={"type": "notebook", "file": {"filePath": file_path, "cells": []}},
        )
    if first > total:
        raise ToolError(
            f"{shown} has only {total} cells; offset {first} is past the end (for a notebook, "
            "offset counts cells)."
        )
    render = _Render(shown, language, max_chars)
    last = min(total, first - 1 + (limit or total))
    index = first - 1
    while index < last:
        if not _add_cell(render, cells[index], index) and index > first - 1:
            break
        index += 1
    shown_last = index  # 1-based number of the last cell shown
    if first > 1 or shown_last < total:
        why = ", output size limit reached" if shown_last < last else ""
        render.parts.append(
            f"\n(showing cells {first}-{shown_last} of {total}{why}; Read with offset="
            f"{shown_last + 1} to see the next cells: for a notebook, offset and limit count "
            "cells)"
        )
    structured = {"type": "notebook", "file": {"filePath": file_path, "cells": render.cells}}
    return ToolOutput("\n".join(render.parts), images=tuple(render.images), structured=structured)


def _add_cell(render: _Render, cell: dict[str, Any], index: int) -> bool:
    """Add the cell at `index` unless it would take the text past the budget."""
    ident = cell_id(cell, index)
    kind = str(cell.get("cell_type", "code"))
    source = _joined(cell.get("source"))
    tags = "" if kind == "code" else f"<cell_type>{kind}</cell_type>"
    if kind == "code" and render.language != "python":
        tags += f"<language>{render.language}</language>"
    texts = [f'<cell id="{ident}">{tags}{source}</cell id="{ident}">']
    summary: dict[str, Any] = {"cellType": kind, "source": source, "cell_id": ident}
    outputs = cell.get("outputs") if kind == "code" else None
    pending: list[ImageBlock] = []
    pending_bytes = 0
    if kind == "code":
        summary["language"] = render.language
        count = cell.get("execution_count")
        if isinstance(count, int) and count:
            summary["execution_count"] = count
    if isinstance(outputs, list) and outputs:
        shown_outputs: list[dict[str, Any]] = []
        output_texts: list[str] = []
        unknown = False
        for output in outputs:  # pyright: ignore[reportUnknownVariableType]
            described = _output(output)
            if described is None:
                unknown = True
                continue
            text, picture = described
            entry: dict[str, Any] = {"output_type": output["output_type"], "text": text}
            if text:
                output_texts.append(text)
            if picture is not None:
                note, block = _picture(render, index, picture, pending)
                output_texts.append(note)
                if block is not None:
                    pending.append(block)
                    pending_bytes += picture[2]
                    entry["image"] = {"image_data": picture[1], "media_type": picture[0]}
            shown_outputs.append(entry)
        texts.extend("\n" + text for text in _trimmed(output_texts, index, render.shown))
        if unknown:
            texts.append("\nOutputs of an unknown type are not shown.")
        summary["outputs"] = shown_outputs
    text = "\n".join(texts)
    if render.parts and render.chars + len(text) > render.max_chars:
        return False
    render.parts.append(text)
    render.chars += len(text) + 1
    render.images.extend(pending)
    render.image_bytes += pending_bytes
    render.cells.append(summary)
    return True


def _output(output: object) -> tuple[str, tuple[ImageMediaType, str, int] | None] | None:
    """An output's text and picture (media type, base64, size); None for an unknown kind."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    if kind == "stream":
        return _joined(output.get("text")), None  # pyright: ignore[reportUnknownMemberType]
    if kind in ("execute_result", "display_data"):
        data = output.get("data")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if not isinstance(data, dict):
            return "", None
        return _joined(data.get("text/plain")), _picture_of(data)  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    if kind == "error":
        lines = [f"{output.get('ename', '')}: {output.get('evalue', '')}"]  # pyright: ignore[reportUnknownMemberType]
        traceback = output.get("traceback")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if isinstance(traceback, list):
            lines.extend(str(line) for line in traceback)  # pyright: ignore[reportUnknownVariableType]
        return _ANSI.sub("", "\n".join(lines)), None
    return None


def _picture_of(data: dict[str, Any]) -> tuple[ImageMediaType, str, int] | None:
    for media_type in _IMAGE_TYPES:
        value = data.get(media_type)
        encoded = "".join(_joined(value).split())
        if not encoded:
            continue
        try:
            size = len(base64.b64decode(encoded, validate=True))
        except (binascii.Error, ValueError):
            return None
        return media_type, encoded, size
    return None


def _picture(
    render: _Render, index: int, picture: tuple[ImageMediaType, str, int], pending: list[ImageBlock]
) -> tuple[str, ImageBlock | None]:
    """The note standing in the text for a picture output, and the picture when it fits."""
    media_type, encoded, size = picture
    kind = media_type.removeprefix("image/").upper()
    held = render.image_bytes + sum(_size(block) for block in pending)
    if size > MAX_IMAGE_BYTES:
        return f"[{kind} image output, {human_size(size)}: too large to show]", None
    if held + size > MAX_IMAGE_BYTES:
        return (
            f"[{kind} image output, {human_size(size)}: not shown, as the pictures of one Read "
            f"are limited to {human_size(MAX_IMAGE_BYTES)}; Read with offset={index + 1} to "
            "see it]"
        ), None
    number = len(render.images) + len(pending) + 1
    block = ImageBlock(source=Base64ImageSource(media_type=media_type, data=encoded))
    return f"[{kind} image output: image {number} of this result, shown below]", block


def _size(block: ImageBlock) -> int:
    data = block.source.data if isinstance(block.source, Base64ImageSource) else ""
    return len(data) * 3 // 4


def _trimmed(texts: list[str], index: int, shown: str) -> list[str]:
    """A cell's output texts within OUTPUT_CHARS_PER_CELL: what is over is cut from the middle
    (the head and the end of a long output are what tell most), and the note says how to see
    it all."""
    total = sum(len(text) for text in texts)
    if total <= OUTPUT_CHARS_PER_CELL:
        return texts
    joined = "\n".join(texts)
    tail = OUTPUT_CHARS_PER_CELL - _HEAD_CHARS
    left_out = joined[_HEAD_CHARS : len(joined) - tail]
    note = (
        f"\n... [{len(left_out):,} characters ({left_out.count(chr(10)) + 1} lines) of this "
        f"cell's outputs left out; see them all with Bash: jq '.cells[{index}].outputs' "
        f"{shlex.quote(shown)}] ...\n"
    )
    kept = joined[:_HEAD_CHARS] + note + joined[len(joined) - tail :]
    # The notes standing for pictures are never cut: each names an image the model sees.
    lost = [
        text
        for text in texts
        if text.startswith("[") and " image output" in text and text in left_out
    ]
    return [kept, *lost]


def _joined(value: object) -> str:
    """A notebook's multi-line string: one string, or a list of lines to join."""
    if isinstance(value, list):
        return "".join(str(line) for line in value)  # pyright: ignore[reportUnknownVariableType]
    return value if isinstance(value, str) else ""
