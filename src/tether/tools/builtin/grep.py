"""Grep: search file contents with ripgrep, in three output modes."""

from __future__ import annotations

import asyncio
import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.ripgrep import newest_first, run_rg
from tether.tools.context import ToolContext
from tether.tools.os_errors import os_errors
from tether.tools.os_text import OsText

MAX_OUTPUT_CHARS = 30_000
MAX_COLUMNS = 500
"""Longer matching lines (minified code, data) are shown as a preview."""
_MAX_RG_BYTES = {
    "files_with_matches": 64 * 1024 * 1024,  # every name is needed to order them by time
    "count": 16 * 1024 * 1024,
    "content": 4 * 1024 * 1024,  # far more than is ever shown
}

OutputMode = Literal["files_with_matches", "content", "count"]


class GrepInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    pattern: OsText = Field(
        min_length=1, description="The regular expression to search for (ripgrep syntax)."
    )
    path: OsText | None = Field(
        default=None, description="The file or directory to search (default: the workspace)."
    )
    glob: OsText | None = Field(
        default=None,
        description='Only search files whose paths match this glob, e.g. "*.js", "*.{ts,tsx}".',
    )
    type: OsText | None = Field(
        default=None,
        description='Only search files of this ripgrep type, e.g. "py", "js", "rust", "go".',
    )
    output_mode: OutputMode = Field(
        default="files_with_matches",
        description='"files_with_matches" (default): paths of matching files; "content": the '
        'matching lines; "count": the number of matching lines per file.',
    )
    case_insensitive: bool = Field(
        default=False, alias="-i", description="Ignore case when matching."
    )
    line_numbers: bool = Field(
        default=True, alias="-n", description="Show line numbers (content mode only)."
    )
    after_context: int | None = Field(
        default=None, ge=0, alias="-A", description="Lines to show after each match (content)."
    )
    before_context: int | None = Field(
        default=None, ge=0, alias="-B", description="Lines to show before each match (content)."
    )
    context: int | None = Field(
        default=None,
        ge=0,
        alias="-C",
        description="Lines to show before and after each match (content).",
    )
    head_limit: int | None = Field(
        default=None,
        ge=0,
        description="Show only the first N lines (content), paths (files_with_matches) or "
        "entries (count); 0 means no limit.",
    )
    multiline: bool = Field(
        default=False,
        description="Let the pattern span lines; `.` then matches newlines too.",
    )


@tool("Grep", read_only=True, paths=("path",))
async def grep(ctx: ToolContext, args: GrepInput) -> ToolOutput:
    """Search file contents with a regular expression, powered by ripgrep.

    - Use this for every content search; do not run grep or rg through Bash.
    - Full regex syntax (Rust flavour): "log.*Error", "def\\s+\\w+". Escape literal braces:
      "interface\\{\\}" finds "interface{}".
    - Narrow the files with `glob` ("*.js", "src/**/*.{ts,tsx}") or `type` ("py", "js", "rust").
    - output_mode "files_with_matches" (default) lists matching files, most recently modified
      first; "content" shows matching lines (with -n, -A, -B, -C); "count" counts per file.
    - Patterns match within a line; set `multiline` for patterns that span lines.
    - Respects .gitignore; hidden files are searched, .git is not.
    """
    argv, target = _rg_arguments(ctx, args)
    if ctx.read_denied is not None:
        argv = ["--null", *argv]  # paths end in NUL: unambiguous to filter on
    run = await run_rg(argv, ctx.workspace, _MAX_RG_BYTES[args.output_mode])
    no_match = ToolOutput(
        f"No matches found for {args.pattern!r} in {target}.",
        structured=_structured(args.output_mode, [], None),
    )
    if run.returncode == 1 or (run.returncode == 0 and not run.stdout):
        return no_match
    if run.returncode == 2 and not run.stdout:
        raise ToolError(f"ripgrep failed: {run.stderr}")
    notes: list[str] = []
    if ctx.read_denied is None:
        entries = [line for line in run.stdout.split(b"\n") if line]
    else:
        entries, hidden = _without_denied(ctx, run.stdout, args.output_mode)
        if hidden:
            notes.append(f"({hidden} file(s) left out: the permission rules deny reading them)")
        if not entries:
            return no_match
    if args.output_mode == "files_with_matches":
        entries = await asyncio.to_thread(newest_first, ctx.workspace, entries)
    elif args.output_mode == "count":
        entries.sort()
        notes.append(_count_summary(entries))
    if run.cut:
        notes.append("(ripgrep's output was too large and was stopped early; narrow the search)")
    limit = args.head_limit or None
    applied = None
    if limit is not None and len(entries) > limit:
        unit = "lines" if args.output_mode == "content" else "entries"
        notes.append(f"(showing the first {limit} of {len(entries)} {unit}: head_limit)")
        entries = entries[:limit]
        applied = limit
    if run.returncode == 2:
        first_error = run.stderr.splitlines()[0] if run.stderr else "unknown error"
        notes.append(f"(some files could not be searched: {first_error})")
    lines = [entry.decode("utf-8", errors="replace") for entry in entries]
    structured = _structured(args.output_mode, lines, applied)
    return ToolOutput(_cap("\n".join(lines), notes), structured=structured)


def _structured(mode: OutputMode, lines: list[str], applied_limit: int | None) -> dict[str, Any]:
    """Grep's `tool_use_result` in Claude Code's shape, per output mode: the files, the
    matching lines, or the counts."""
    result: dict[str, Any] = {"mode": mode}
    if mode == "files_with_matches":
        result.update(numFiles=len(lines), filenames=lines)
    elif mode == "content":
        result.update(numFiles=0, filenames=[], content="\n".join(lines), numLines=len(lines))
    else:
        matches = sum(int(n) for line in lines if (n := line.rpartition(":")[2]).isdigit())
        result.update(
            numFiles=len(lines), filenames=[], content="\n".join(lines), numMatches=matches
        )
    if applied_limit is not None:
        result["appliedLimit"] = applied_limit
    return result


def _rg_arguments(ctx: ToolContext, args: GrepInput) -> tuple[list[str], str]:
    """rg's argument list (never a shell string) and how the searched path is shown."""
    argv = ["--hidden", "--color", "never", "--max-columns", str(MAX_COLUMNS)]
    argv.append("--max-columns-preview")
    if args.output_mode == "files_with_matches":
        argv.append("--files-with-matches")
    elif args.output_mode == "count":
        argv += ["--count", "--with-filename"]
    else:
        argv += ["--with-filename", "--no-heading"]
        argv.append("--line-number" if args.line_numbers else "--no-line-number")
        for flag, value in (
            ("--after-context", args.after_context),
            ("--before-context", args.before_context),
            ("--context", args.context),
        ):
            if value is not None:
                argv += [flag, str(value)]
    if args.case_insensitive:
        argv.append("--ignore-case")
    if args.multiline:
        argv += ["--multiline", "--multiline-dotall"]
    if args.type:
        argv += ["--type", args.type]
    if args.glob:
        argv += ["--glob", args.glob]
    argv += ["--glob", "!.git", "--regexp", args.pattern]
    if not args.path:
        return argv, "the workspace"
    target = ctx.resolve(args.path)
    shown = ctx.show(target)
    with os_errors(f"search {shown}"):
        exists = target.exists()
    if not exists:
        raise ToolError(f"Path does not exist: {shown}.")
    if target == ctx.workspace:
        return argv, "the workspace"
    # Relative inside the workspace so that rg prints paths the way ctx.show does.
    return [*argv, "--", shown], shown


def _without_denied(ctx: ToolContext, stdout: bytes, mode: str) -> tuple[list[bytes], int]:
    """rg's `--null` output without the files the rules deny, back in its usual form."""
    read_denied = ctx.read_denied
    assert read_denied is not None
    denied_paths: set[bytes] = set()

    def denied(path: bytes) -> bool:
        if path in denied_paths:
            return True
        if read_denied(ctx.workspace / os.fsdecode(path)):
            denied_paths.add(path)
            return True
        return False

    if mode == "files_with_matches":
        paths = [p.strip(b"\n") for p in stdout.split(b"\0")]
        return [p for p in paths if p and not denied(p)], len(denied_paths)
    entries: list[bytes] = []
    for line in stdout.split(b"\n"):
        if not line:
            continue
        path, nul, rest = line.partition(b"\0")
        if not nul:  # a "--" between context groups
            entries.append(line)
        elif not denied(path):
            number, dash, _ = rest.partition(b"-")
            context_line = bool(dash) and number.isdigit() and b":" not in number
            entries.append(path + (b"-" if context_line else b":") + rest)
    return entries, len(denied_paths)


def _count_summary(entries: list[bytes]) -> str:
    total = 0
    for entry in entries:
        _, _, count = entry.rpartition(b":")
        total += int(count) if count.isdigit() else 0
    files = "1 file" if len(entries) == 1 else f"{len(entries)} files"
    return f"({total} matching lines in {files})"


def _cap(text: str, notes: list[str]) -> str:
    if len(text) > MAX_OUTPUT_CHARS:
        cut_at = text.rfind("\n", 0, MAX_OUTPUT_CHARS)
        cut_at = cut_at if cut_at > 0 else MAX_OUTPUT_CHARS
        left_out = text.count("\n", cut_at) or 1
        text = text[:cut_at]
        notes.append(
            f"(output cut at {MAX_OUTPUT_CHARS:,} characters, {left_out} more lines left out; "
            "use head_limit, path, glob or a narrower pattern)"
        )
    return "\n".join([text, *notes])
