"""Glob: find files by name pattern, most recently modified first."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.files import printable
from tether.tools.builtin.glob_match import compile_glob, split_static_prefix
from tether.tools.builtin.ripgrep import newest_first, run_rg
from tether.tools.context import ToolContext
from tether.tools.os_errors import os_errors
from tether.tools.os_text import OsText

MAX_RESULTS = 100
_MAX_LISTING_BYTES = 64 * 1024 * 1024


class GlobInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    pattern: OsText = Field(
        min_length=1,
        description='The glob to match file paths against, e.g. "**/*.py" or "src/**/*.ts".',
    )
    path: OsText | None = Field(
        default=None,
        description="The directory to search in (default: the workspace). Omit it for the "
        "default; do not pass null or an empty string.",
    )


@tool("Glob", read_only=True, paths=("path",))
async def glob(ctx: ToolContext, args: GlobInput) -> ToolOutput:
    """Find files whose paths match a glob pattern, most recently modified first.

    - Patterns like "**/*.js" or "src/**/*.ts"; a pattern without "/" ("*.py") matches file
      names at any depth; braces work ("*.{ts,tsx}").
    - Respects .gitignore; hidden files are included, .git is not.
    - At most 100 paths are listed; narrow the pattern or path when there are more.
    - To search file contents, use Grep.
    """
    started = time.perf_counter()
    found, text = await _find(ctx, args)
    structured = {
        "filenames": [printable(str(path)) for path in found[:MAX_RESULTS]],
        "durationMs": int((time.perf_counter() - started) * 1000),
        "numFiles": min(len(found), MAX_RESULTS),
        "truncated": len(found) > MAX_RESULTS,
    }
    return ToolOutput(text, structured=structured)


async def _find(ctx: ToolContext, args: GlobInput) -> tuple[list[Path], str]:
    """The matching files, newest first (all of them), and what the model reads."""
    base, pattern = _base_and_pattern(ctx, args.pattern, args.path)
    if pattern.endswith("/"):
        pattern += "**"
    anchored = args.pattern.startswith("/") or "/" in pattern
    prefix, rest = split_static_prefix(pattern) if anchored else ("", pattern)
    # Starting the walk below the pattern's fixed directories spares walking everything else.
    root = ctx.resolve(str(base / prefix)) if prefix else base
    where = "the workspace" if base == ctx.workspace else ctx.show(base)
    no_match = f"No files match {args.pattern!r} in {where}."
    with os_errors(f"search {ctx.show(root)}"):
        root_is_dir = root.is_dir()
    if not root_is_dir:
        return [], no_match
    run = await run_rg(["--files", "--hidden", "--glob", "!.git"], root, _MAX_LISTING_BYTES)
    if run.returncode == 2 and not run.stdout:
        raise ToolError(f"Glob failed: {run.stderr}")
    matches = compile_glob(rest, anchored=anchored)
    names = [name for name in run.stdout.split(b"\n") if name and matches(os.fsdecode(name))]
    if ctx.read_denied is not None:
        denied = ctx.read_denied
        names = [name for name in names if not denied(root / os.fsdecode(name))]
    if not names:
        return [], no_match
    ordered = await asyncio.to_thread(newest_first, root, names)
    found = [root / os.fsdecode(name) for name in ordered]
    lines = [printable(ctx.show(path)) for path in found[:MAX_RESULTS]]
    if len(ordered) > MAX_RESULTS:
        more = "more than " if run.cut else ""
        lines.append(
            f"(showing the {MAX_RESULTS} most recently modified of {more}{len(ordered)} "
            "matches; narrow the pattern or path to see the others)"
        )
    return found, "\n".join(lines)


def _base_and_pattern(ctx: ToolContext, pattern: str, path: str | None) -> tuple[Path, str]:
    """The directory the pattern is relative to, and the pattern; an absolute pattern carries
    its own directory and overrides `path`."""
    if pattern.startswith("/"):
        return Path("/"), pattern.lstrip("/")
    base = ctx.resolve(path) if path else ctx.workspace
    shown = ctx.show(base)
    with os_errors(f"search {shown}"):
        exists, is_dir = base.exists(), base.is_dir()
    if not exists:
        raise ToolError(f"Directory does not exist: {shown}.")
    if not is_dir:
        raise ToolError(f"{shown} is not a directory; give a directory as path.")
    while pattern.startswith("./"):
        pattern = pattern[2:]
    return base, pattern
