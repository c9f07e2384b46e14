"""Heredoc bodies judged as bash reads them: tree-sitter-bash misreads a body whose line starts
with a backslash, a `$` it cannot pair, most `<<-` bodies; the engine then reads the body from
the text. An escaped opener there is literal text (allowed), an unescaped one runs (judged);
real bash says which each command does."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import Decision, decide

from .conftest import ContextFactory
from .test_parser_hidden import DENY, runs_sudo

LITERAL = [
    # escapes inside unquoted bodies: `\$`, an escaped backtick, at the start of a line too
    "cat <<E\n\\$(sudo true)\nE",
    "cat <<-E\n\t\\$(sudo true)\nE",
    "cat <<E\nfirst\n\\$(sudo true) and \\`sudo true\\`\nE",
    "cat <<E\n\\`sudo true\\`\nE",
    "cat <<E\n\n\\${x:-$(echo)}\\$(sudo true)\nE",
    "cat <<-E\n\\$(sudo true)\n\tE\necho done",
    'x=$(cat <<E\n\\$(sudo true)\nE\n); echo "$x"',
    "cat <<A\n\\$(sudo true)\nA\ncat <<B\n\\`sudo true\\`\nB",
    # a backslash-newline in a body joins two lines of text, not two words
    "cat <<E\nsome \\\ntext \\$(sudo true)\nE",
    "cat <<'E'\n\\$(sudo true) a\\\nb\nE",
]
RUNS = [
    # an escaped backslash leaves the `$` unescaped
    ("cat <<E\n\\\\$(sudo true)\nE", "sudo true"),
    ("cat <<-E\n\t\\\\`sudo true`\nE", "sudo true"),
    # a backslash-newline inside the substitution is removed before it runs
    ("cat <<E\n\\$x $(su\\\ndo true)\nE", "sudo true"),
    ("cat <<E\n\\$\n$(sudo true)\nE", "sudo true"),
    ("cat <<A\n\\$(x)\nA\ncat <<-B\n\\\\$(sudo true)\nB", "sudo true"),
    # quotes inside a substitution in a body are quotes: `s"ud"o` is sudo
    ('cat <<E\n$(s"ud"o true)\nE', "sudo true"),
    ('echo $({ cat <<E\n$(echo ")"; s"ud"o true)\nE\n})', "sudo true"),
    ('x=$(cat <<E\n"$(s"ud"o "true")"\nE\n)', "sudo true"),
]


@pytest.mark.parametrize("command", LITERAL)
def test_an_escaped_opener_in_a_body_is_text(
    command: str, tmp_path: Path, make_ctx: ContextFactory
) -> None:
    assert not runs_sudo(command, tmp_path)
    decision = decide("Bash", {"command": command}, make_ctx(DENY))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(("command", "runs"), RUNS)
def test_what_a_body_runs_is_judged(
    command: str, runs: str, tmp_path: Path, make_ctx: ContextFactory
) -> None:
    assert runs_sudo(command, tmp_path)
    assert decide("Bash", {"command": command}, make_ctx(DENY)) == Decision(
        "deny", "Bash(sudo *)", f"`{runs}` is denied by Bash(sudo *)"
    )


@pytest.mark.parametrize(
    "command",
    [
        'echo "$ $(sudo true)"',
        'echo "$\t$(sudo true)"',
        'echo "a$\n$(sudo true)"',
        "cat <<E\n$ $(sudo true)\nE",
    ],
)
def test_a_dollar_the_parser_pairs_with_the_next_is_not_trusted(
    command: str, tmp_path: Path, make_ctx: ContextFactory
) -> None:
    """tree-sitter reads `$ $` as one expansion and the substitution after it as text."""
    assert runs_sudo(command, tmp_path)
    assert decide("Bash", {"command": command}, make_ctx(DENY)).behavior == "deny"


_PARTS = ["\\", "\\\\", "\\$", "$(sudo true)", "`sudo true`", "\\`", "\\\n", "\n", " ", "\t"]
_PARTS += ["x", "'", '"', "$", "(", ")", "${x:-$(sudo true)}", "#", '$(s"ud"o true)']
_body = st.lists(st.sampled_from(_PARTS), min_size=1, max_size=8).map("".join)


@settings(
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(body=_body, operator=st.sampled_from(["<<E", "<<-E", "<< E", "<<'E'"]))
def test_bash_judges_heredoc_bodies(
    body: str, operator: str, tmp_path_factory: pytest.TempPathFactory, make_ctx: ContextFactory
) -> None:
    """No body that runs `sudo` is allowed under a rule denying it."""
    command = f"cat {operator}\n{body}\nE\necho ok"
    decision = decide("Bash", {"command": command}, make_ctx(DENY))
    if decision.behavior == "allow":
        assert not runs_sudo(command, tmp_path_factory.mktemp("run")), command
