"""A bad suite is refused whole before anything runs, each problem named by file, case and
key; the command exits 2 and starts nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evals.conftest import run_eval
from tether.evals.suite import SuiteError, load_suite
from tether.testing import FakeModelServer


def _refusal(tmp_path: Path, text: str) -> str:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    return str(caught.value).replace(str(path), "SUITE")


def test_each_problem_names_the_case_and_the_key(tmp_path: Path) -> None:
    text = (
        "cases:\n"
        "  - id: ok\n    prompt: p\n    check: 'true'\n    files: {a.py: ''}\n"
        "  - id: two\n    prompt: p\n    files: {a.py: ''}\n    repo: somewhere\n"
        "    check: 'true'\n"
        "  - id: three\n    prompt: p\n    files: {../x: ''}\n    check: 'true'\n"
        "    rubric: {scale: [5, 1]}\n"
        "  - prompt: p\n    files: {a.py: ''}\n"
        "  - id: f/ve\n    prompt: p\n    files: {a.py: ''}\n    check: 'true'\n"
        "    timout_s: 3\n"
        "  - id: six\n    prompt: p\n    repo: ' '\n    check: 'true'\n"
    )
    assert _refusal(tmp_path, text).splitlines() == [
        "SUITE: 8 problem(s)",
        "  case 'two' (#2): give exactly one of `repo` (a directory) or `files` (inline)",
        "  case 'three' (#3), key files: '../x' must be a relative path inside the copy",
        "  case 'three' (#3), key rubric.scale: scale must rise: [5, 1]",
        "  case #4, key id: Field required",
        "  case #4, key check: Field required",
        "  case 'f/ve' (#5), key id: 'f/ve' must be letters, digits, '.', '-' or '_' (at most 64)",
        "  case 'f/ve' (#5), key timout_s: Extra inputs are not permitted",
        "  case 'six' (#6), key repo: an empty path names no directory (`.` is the suite's own)",
    ]


def test_problems_outside_cases_and_broken_files(tmp_path: Path) -> None:
    assert _refusal(tmp_path, "cases: []\nparallel: 2\n").splitlines() == [
        "SUITE: 2 problem(s)",
        "  key cases: List should have at least 1 item after validation, not 0",
        "  key parallel: Extra inputs are not permitted",
    ]
    assert _refusal(tmp_path, "- just\n- a list\n") == (
        "SUITE: a suite is a mapping with `cases`, not list"
    )
    assert _refusal(tmp_path, "cases: [\n").startswith("SUITE: not valid YAML: ")
    assert _refusal(tmp_path, "# nothing\n") == "SUITE: empty: a suite is a mapping with `cases`"
    with pytest.raises(SuiteError, match="cannot read"):
        load_suite(tmp_path / "missing.yaml")


def test_duplicate_case_ids_are_refused(tmp_path: Path) -> None:
    case = "  - id: a\n    prompt: p\n    check: 'true'\n    files: {x: ''}\n"
    assert _refusal(tmp_path, "cases:\n" + case + case).splitlines() == [
        "SUITE: 1 problem(s)",
        "  suite: case id 'a' appears twice",
    ]


def test_the_command_exits_2_and_runs_nothing(model_env: FakeModelServer, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("cases:\n  - id: x\n    prompt: p\n    files: {}\n")
    done = run_eval("suite.yaml", "--out", "out", cwd=tmp_path)
    assert done.exit_code == 2
    assert done.stderr == (
        "tether eval: suite.yaml: 1 problem(s)\n  case 'x' (#1), key check: Field required\n"
    )
    assert not (tmp_path / "out").exists()
    assert model_env.requests == []


def test_an_out_that_is_a_file_is_refused_before_anything_runs(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    (tmp_path / "taken").write_text("keep me")
    (tmp_path / "suite.yaml").write_text(
        "cases:\n  - id: x\n    prompt: p\n    files: {}\n    check: 'true'\n"
    )
    done = run_eval("suite.yaml", "--out", "taken", cwd=tmp_path)
    assert done.exit_code == 2
    assert done.stderr == (
        f"tether eval: --out {tmp_path / 'taken'}: cannot make the directory: File exists\n"
    )
    assert (tmp_path / "taken").read_text() == "keep me"
    assert model_env.requests == []


def test_a_repo_that_is_not_a_directory_is_refused_before_anything_runs(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "ok").mkdir()
    (tmp_path / "cases" / "a-file").write_text("")
    case = "  - id: {}\n    prompt: p\n    check: 'true'\n    repo: {}\n"
    (tmp_path / "cases" / "suite.yaml").write_text(
        "cases:\n"
        + case.format("a", "./nope")
        + case.format("b", "ok")
        + case.format("c", "a-file")
    )
    done = run_eval("cases/suite.yaml", "--out", "out", cwd=tmp_path)
    here = tmp_path / "cases"
    assert done.exit_code == 2
    assert done.stderr == (
        "tether eval: cases/suite.yaml: 2 problem(s)\n"
        f"  case 'a' (#1), key repo: './nope' is not a directory ({here / 'nope'})\n"
        f"  case 'c' (#3), key repo: 'a-file' is not a directory ({here / 'a-file'})\n"
    )
    assert not (tmp_path / "out").exists()
    assert model_env.requests == []
