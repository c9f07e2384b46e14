"""Names from a suite (its name, variants, case ids) are printed as they are, never read as
rich markup; files that cannot be a suite or a results file get the usual one line."""

from __future__ import annotations

import json
from pathlib import Path

from tests.evals.conftest import results, run_eval
from tether.testing import FakeModelServer, text
from tether.testing.cli_runner import run_cli_process

MARKUP_SUITE = """\
name: "[/x] suite [bold red]R"
cases:
  - {id: one, prompt: p, files: {a.txt: a}, check: "true"}
variants:
  - {name: "[/oops]", model: claude-haiku-5-5}
  - {name: "[bold red]R", model: claude-sonnet-5-5}
"""


def test_markup_in_names_is_printed_as_text(model_env: FakeModelServer, tmp_path: Path) -> None:
    model_env.responder = lambda request: text("done")
    (tmp_path / "suite.yaml").write_text(MARKUP_SUITE)
    for out in ("a", "b"):
        done = run_eval("suite.yaml", "--out", out, cwd=tmp_path)
        assert done.exit_code == 0, done.stderr
        assert "Traceback" not in done.stderr
        assert "[/x] suite [bold red]R" in done.stdout
        assert "[/oops]" in done.stdout
        assert "[bold red]R" in done.stdout
    assert [r["variant"] for r in results(tmp_path / "a")["runs"]] == ["[/oops]", "[bold red]R"]
    compared = run_cli_process(["eval", "compare", "a", "b"], cwd=tmp_path, timeout_s=60)
    assert compared.exit_code == 0, compared.stderr
    assert "[/oops]" in compared.stdout
    assert "[bold red]R" in compared.stdout


def _refusal(tmp_path: Path, name: str, content: bytes) -> str:
    (tmp_path / name).write_bytes(content)
    done = run_eval(name, "--out", "out", cwd=tmp_path)
    assert done.exit_code == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    return done.stderr.strip()


def test_a_file_clash_and_non_utf8_bytes_are_refused_before_anything_runs(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    clash = b'cases:\n  - {id: c, prompt: p, check: "true", files: {a: x, a/b: y}}\n'
    said = _refusal(tmp_path, "clash.yaml", clash)
    assert said.endswith(
        "case 'c' (#1), key files: 'a/b' needs 'a' to be a directory, and it is a file too"
    ), said
    same = b'cases:\n  - {id: c, prompt: p, check: "true", files: {a/b: x, ./a//b: y}}\n'
    assert "'./a//b' and 'a/b' are the same file" in _refusal(tmp_path, "same.yaml", same)
    said = _refusal(tmp_path, "bytes.yaml", b"\xff\xfename: x\n")
    assert said.endswith("bytes.yaml: not UTF-8 text (byte 0xff at offset 0)"), said
    assert len(said.splitlines()) == 1
    assert model_env.requests == []


def test_compare_on_a_malformed_results_file_is_one_line(tmp_path: Path) -> None:
    good = tmp_path / "good"
    good.mkdir()
    (good / "results.json").write_text(json.dumps({"suite": "s", "runs": [{"case": 3}]}))
    done = run_cli_process(["eval", "compare", "good", "good"], cwd=tmp_path, timeout_s=60)
    assert done.exit_code == 2
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("tether eval compare: "), line
    assert "results.json" in line, line


def test_an_empty_model_is_refused(model_env: FakeModelServer, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        'cases:\n  - {id: c, prompt: p, check: "true", files: {a: x}}\n'
    )
    done = run_eval("suite.yaml", "--model", "", "--out", "out", cwd=tmp_path)
    assert done.exit_code == 2
    assert "a model name cannot be empty" in done.stderr
    (tmp_path / "variant.yaml").write_text(
        'cases:\n  - {id: c, prompt: p, check: "true", files: {a: x}}\n'
        "variants:\n  - {model: ' '}\n"
    )
    done = run_eval("variant.yaml", "--out", "out", cwd=tmp_path)
    assert done.exit_code == 2
    assert "key variants.0.model" in done.stderr, done.stderr
    assert model_env.requests == []


def test_a_pass_rate_out_of_range_is_refused(model_env: FakeModelServer, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        'cases:\n  - {id: c, prompt: p, check: "true", files: {a: x}}\n'
    )
    for given, said in (("101", "101 must be between 0 and 100"), ("most", "'most' is not a")):
        done = run_eval("suite.yaml", "--fail-under", given, "--out", "out", cwd=tmp_path)
        assert done.exit_code == 2
        assert said in done.stderr, done.stderr
    assert model_env.requests == []
