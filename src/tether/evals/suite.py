"""An evaluation suite as written in YAML, validated whole before anything runs: a bad suite
is one error naming the file, the case and the key."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

PermissionMode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto"]
CRITERIA = ("accuracy", "tool_efficiency", "plan_adherence")
"""What a judge scores unless a rubric names its own criteria."""

_CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class SuiteError(Exception):
    """A suite that cannot be run, said precisely (file, case, key)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Rubric(_Strict):
    """What a model judge scores from the transcript, each criterion on `scale`."""

    criteria: dict[str, str] = Field(
        default_factory=lambda: {
            "accuracy": "Did the agent do what was asked, correctly and completely?",
            "tool_efficiency": "Did it reach the result without needless or repeated tool calls?",
            "plan_adherence": "Did it follow a sensible plan and the instructions given?",
        },
        min_length=1,
    )
    """criterion name -> the question the judge answers for it."""
    scale: tuple[int, int] = (1, 5)
    """Lowest and highest score."""
    notes: str = ""
    """What a good answer looks like for this case (told to the judge)."""

    @field_validator("scale")
    @classmethod
    def _scale_rises(cls, scale: tuple[int, int]) -> tuple[int, int]:
        if scale[0] >= scale[1]:
            raise ValueError(f"scale must rise: {list(scale)}")
        return scale


class Limits(_Strict):
    timeout_s: float = Field(default=600.0, gt=0)
    """Wall time for the agent's run; the setup and check have their own (`step_timeout_s`)."""
    max_budget_usd: float | None = Field(default=None, gt=0)
    max_turns: int | None = Field(default=None, gt=0)
    step_timeout_s: float = Field(default=120.0, gt=0)


class Case(_Strict):
    """One task: where it starts, what is asked, how success is told."""

    id: str
    prompt: str = Field(min_length=1)
    repo: str | None = None
    """A directory to start from (relative to the suite file): a git repository is checked
    out as a worktree of its HEAD, anything else copied."""
    files: dict[str, str] | None = None
    """Or the starting files inline: relative path -> content."""
    setup: str | None = None
    """A shell command run in the copy before the agent starts (exit 0 needed)."""
    check: str = Field(min_length=1)
    """A shell command run in the copy after the agent: exit 0 passes."""
    rubric: Rubric | None = None
    timeout_s: float | None = Field(default=None, gt=0)
    max_budget_usd: float | None = Field(default=None, gt=0)
    max_turns: int | None = Field(default=None, gt=0)

    @field_validator("id")
    @classmethod
    def _id_names_files(cls, value: str) -> str:
        if not _CASE_ID.match(value):
            raise ValueError(f"{value!r} must be letters, digits, '.', '-' or '_' (at most 64)")
        return value

    @field_validator("repo")
    @classmethod
    def _repo_named(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("an empty path names no directory (`.` is the suite's own)")
        return value

    @field_validator("files")
    @classmethod
    def _files_inside(cls, files: dict[str, str] | None) -> dict[str, str] | None:
        written: dict[tuple[str, ...], str] = {}
        for name in files or {}:
            if not name or Path(name).is_absolute() or ".." in Path(name).parts:
                raise ValueError(f"{name!r} must be a relative path inside the copy")
            parts = PurePosixPath(name).parts
            if not parts or name.endswith("/"):
                raise ValueError(f"{name!r} must name a file, not a directory")
            if parts in written:
                raise ValueError(f"{name!r} and {written[parts]!r} are the same file")
            written[parts] = name
        for parts, name in written.items():
            for depth in range(1, len(parts)):
                if (above := written.get(parts[:depth])) is not None:
                    raise ValueError(
                        f"{name!r} needs {above!r} to be a directory, and it is a file too"
                    )
        return files

    @model_validator(mode="after")
    def _one_start(self) -> Case:
        if (self.repo is None) == (self.files is None):
            raise ValueError("give exactly one of `repo` (a directory) or `files` (inline)")
        return self


class Variant(_Strict):
    """One column of the comparison: a model and the settings it runs with."""

    name: str | None = None
    model: str | None = Field(default=None, min_length=1, pattern=r"\S")
    permission_mode: PermissionMode | None = None
    allowed_tools: list[str] | None = None
    append_system_prompt: str | None = None
    settings: dict[str, Any] | None = None
    """Extra settings (JSON) passed with `--settings`."""

    @property
    def label(self) -> str:
        return self.name or self.model or "default"


class Judge(_Strict):
    model: str | None = None
    """The judge's model; by default the model of the run it judges."""


class Suite(_Strict):
    name: str = "suite"
    description: str = ""
    permission_mode: PermissionMode = "acceptEdits"
    allowed_tools: list[str] = Field(default_factory=lambda: ["Bash", "Edit", "Write"])
    """No `Read` rule: reads inside the copy need none, and a bare `Read` would allow Read,
    Grep and Glob anywhere (a case's run must stay confined to its copy)."""
    sandbox: bool = True
    """Bash under the sandbox, required: a run where it cannot work fails rather than runs
    unconfined."""
    trust_workspace: bool = False
    """Run what each case's repository declares (its hooks, MCP servers, allow rules), as
    `--trust-workspace` does; off, they are skipped as in any untrusted workspace."""
    limits: Limits = Limits()
    judge: Judge = Judge()
    variants: list[Variant] = Field(default_factory=list[Variant])
    cases: list[Case] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> Suite:
        for what, names in (
            ("case id", [c.id for c in self.cases]),
            ("variant", [v.label for v in self.variants]),
        ):
            seen: set[str] = set()
            for name in names:
                if name in seen:
                    raise ValueError(f"{what} {name!r} appears twice")
                seen.add(name)
        return self


def load_suite(path: Path) -> Suite:
    """The suite in `path`, or `SuiteError` naming the file, the case and the key at fault."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise SuiteError(f"{path}: cannot read: {e.strerror or e}") from e
    except UnicodeDecodeError as e:
        raise SuiteError(
            f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})"
        ) from e
    except yaml.YAMLError as e:
        raise SuiteError(f"{path}: not valid YAML: {e}") from e
    if raw is None:
        raise SuiteError(f"{path}: empty: a suite is a mapping with `cases`")
    if not isinstance(raw, dict):
        raise SuiteError(f"{path}: a suite is a mapping with `cases`, not {type(raw).__name__}")
    try:
        suite = Suite.model_validate(raw)
    except ValidationError as e:
        raise SuiteError(_describe(path, raw, e)) from e
    missing = [
        f"  case {case.id!r} (#{n}), key repo: {case.repo!r} is not a directory ({source})"
        for n, case in enumerate(suite.cases, start=1)
        if case.repo is not None and not (source := (path.parent / case.repo).resolve()).is_dir()
    ]
    if missing:
        raise SuiteError("\n".join([f"{path}: {len(missing)} problem(s)", *missing]))
    return suite


def _describe(path: Path, raw: dict[Any, Any], error: ValidationError) -> str:
    lines = [f"{path}: {error.error_count()} problem(s)"]
    for problem in error.errors():
        loc = list(problem["loc"])
        where = _where(raw, loc)
        message = problem["msg"].removeprefix("Value error, ")
        lines.append(f"  {where}: {message}")
    return "\n".join(lines)


def _where(raw: dict[Any, Any], loc: list[int | str]) -> str:
    """`case 'off-by-one' (#2), key files.x` rather than `cases.1.files.x`."""
    if len(loc) >= 2 and loc[0] == "cases" and isinstance(loc[1], int):
        cases = raw.get("cases")
        index = loc[1]
        case_id = None
        if isinstance(cases, list) and index < len(cases):
            case = cases[index]  # type: ignore[index]
            if isinstance(case, dict):
                case_id = case.get("id")  # type: ignore[union-attr]
        name = f"case {case_id!r} (#{index + 1})" if case_id else f"case #{index + 1}"
        rest = ".".join(str(part) for part in loc[2:])
        return f"{name}, key {rest}" if rest else name
    return "key " + ".".join(str(part) for part in loc) if loc else "suite"
