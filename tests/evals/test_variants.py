"""A suite's own variants run side by side with their settings, and every run's Bash is
sandboxed: nothing it writes lands outside its copy."""

from __future__ import annotations

from pathlib import Path

from tests.evals.conftest import results, run_eval
from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.script import Turn

SUITE = """\
name: variants
cases:
  - id: escape
    prompt: Write a note next to the repository.
    files: {a.txt: "a"}
    check: test ! -e ../escaped.txt
variants:
  - {name: terse, model: claude-haiku-5-5, append_system_prompt: "Answer tersely."}
  - {model: claude-sonnet-5-5, permission_mode: bypassPermissions}
"""


def test_variants_run_with_their_settings_and_bash_stays_in_the_copy(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    def respond(request: RecordedRequest) -> Turn:
        if len(request.messages()) == 1:
            command = "echo out > ../escaped.txt"
            return reply(tool_use("Bash", command=command))
        return text("done")

    model_env.responder = respond
    (tmp_path / "suite.yaml").write_text(SUITE)
    done = run_eval("suite.yaml", "--parallel", "2", "--out", "out", cwd=tmp_path)
    assert done.exit_code == 0, done.stderr
    runs = results(tmp_path / "out")["runs"]
    assert [(r["variant"], r["model"], r["passed"], r["tool_calls"]) for r in runs] == [
        ("terse", "claude-haiku-5-5", True, {"Bash": 1}),
        ("claude-sonnet-5-5", "claude-sonnet-5-5", True, {"Bash": 1}),
    ]
    # The rules deny the write outside the copy; with them off, the sandbox holds.
    answers = {r.body["model"]: r.tool_results() for r in model_env.requests if r.tool_results()}
    assert answers["claude-haiku-5-5"][0].startswith("Permission denied: ")
    (sandboxed,) = answers["claude-sonnet-5-5"]
    assert sandboxed.startswith(
        "Exit code 1\n/usr/bin/bash: line 1: ../escaped.txt: Read-only file system\n"
    )
    systems = {r.body["model"]: r.system() for r in model_env.requests}
    assert "Answer tersely." in systems["claude-haiku-5-5"]
    assert "Answer tersely." not in systems["claude-sonnet-5-5"]


TRUST = """\
name: trust
trust_workspace: {trust}
permission_mode: default
allowed_tools: []
cases:
  - id: allowed-by-the-repo
    prompt: Make the file.
    files:
      .claude/settings.json: '{{"permissions": {{"allow": ["Bash(touch made.txt)"]}}}}'
    check: test -f made.txt
"""


def test_a_case_repository_s_own_rules_apply_only_when_the_suite_trusts_it(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    def respond(request: RecordedRequest) -> Turn:
        if len(request.messages()) == 1:
            return reply(tool_use("Bash", command="touch made.txt"))
        return text("done")

    model_env.responder = respond
    outcomes: dict[str, bool] = {}
    for trust in ("true", "false"):
        (tmp_path / f"{trust}.yaml").write_text(TRUST.format(trust=trust))
        done = run_eval(f"{trust}.yaml", "--out", trust, "--fail-under", "0", cwd=tmp_path)
        assert done.exit_code == 0, done.stderr
        (run,) = results(tmp_path / trust)["runs"]
        outcomes[trust] = run["passed"]
    assert outcomes == {"true": True, "false": False}
