"""Shell options that widen globs (dotglob, globstar, nocaseglob, nullglob), however a command
turns them on, with bash as the judge: a command that printed a denied dot file's content was
not allowed, and every name bash expands a glob to is one the engine's pattern covers."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import decide
from tether.permissions.paths import expand_nodot, globs_overlap
from tether.permissions.shell import parse_command
from tether.permissions.shell_globbing import EVERY, glob_tokens

from .conftest import ContextFactory, Tree

SECRET = "SENTINEL-ENV-CONTENT"
OPTIONS = sorted(EVERY)
GLOBS = ["*", "?env", "*env", "[.]env", "*.ENV", ".EN*", "*.[E]nv", "**", "**/.env", "./*"]
GLOBS += ["src/../*", "?[e]nv", "*/../.env", "s*/../*", "[!x]env", "src/*/../../*"]
PROGRAMS = ["cat", "head -n1", "tail -n1", "grep -h SENTINEL", "cat --"]


def _setters(option: str) -> list[tuple[str, str]]:
    """(before, after) text around a command `{}` that turns `option` on for it, in the ways
    bash offers: directly, in a subshell, a function, eval, a new shell's start options, a
    variable option name; and late, where the command runs after the change that follows it."""
    return [
        (f"shopt -s {option}; ", ""),
        (f"shopt -s {option}\n", ""),
        (f"builtin shopt -s {option} && ", ""),
        (f"command shopt -s extglob {option}; ", ""),
        (f"(shopt -s {option}; ", ")"),
        (f"f() {{ shopt -s {option}; }}; f; ", ""),
        (f"eval 'shopt -s {option}'; ", ""),
        (f"o={option}; shopt -s $o; ", ""),
        (f"bash -O {option} -c '", "'"),
        (f"bash -c 'shopt -s {option}; ", "'"),
        (f"bash -cO {option} '", "'"),
        (f"echo x > s.sh; echo 'shopt -s {option}' >> s.sh; source s.sh; ", ""),
        (f"shopt -s {option}; echo $(", ")"),
    ]


LATE = [
    ("g() { ", "; }; shopt -s {option}; g"),
    ("for i in 1 2; do ", "; shopt -s {option}; done"),
    ("while [ ! -e done ]; do ", "; shopt -s {option}; touch done; done"),
    ("trap '", "' EXIT; shopt -s {option}"),
]


def _run(command: str, ws: Path) -> str:
    completed = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", command],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=10,
        env={"PATH": "/usr/bin:/bin", "HOME": str(ws)},
        check=False,
    )
    return completed.stdout


@pytest.fixture
def secret_ws(tree: Tree) -> Tree:
    (tree.ws / ".env").write_text(SECRET + "\n")
    (tree.ws / ".hidden").mkdir()
    (tree.ws / ".hidden" / ".env").write_text(SECRET + "\n")
    return tree


@settings(
    max_examples=250,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_no_command_that_printed_a_denied_dot_file_was_allowed(
    data: st.DataObject, secret_ws: Tree, make_ctx: ContextFactory
) -> None:
    option = data.draw(st.sampled_from(OPTIONS))
    late = data.draw(st.booleans())
    if late:
        before, after = data.draw(st.sampled_from(LATE))
        after = after.replace("{option}", option)
    else:
        before, after = data.draw(st.sampled_from(_setters(option)))
    extra = data.draw(st.sampled_from(["", "shopt -s globstar; ", "shopt -s dotglob; "]))
    command = f"{data.draw(st.sampled_from(PROGRAMS))} {data.draw(st.sampled_from(GLOBS))}"
    line = f"{extra}{before}{command}{after}"
    ws = secret_ws.ws
    for leftover in ("s.sh", "done"):
        (ws / leftover).unlink(missing_ok=True)
    printed = SECRET in _run(line, ws)
    for leftover in ("s.sh", "done"):
        (ws / leftover).unlink(missing_ok=True)
    ctx = make_ctx(
        {"permissions": {"deny": ["Read(./.env)", "Read(./.hidden/**)"]}},
        mode="bypassPermissions",
    )
    decision = decide("Bash", {"command": line}, ctx)
    assert not (printed and decision.behavior == "allow"), (line, decision)


@pytest.mark.parametrize(
    "command",
    [
        "shopt -s nullglob; find nomatch* -delete",
        "shopt -s nullglob; grep -r SENTINEL nomatch*",
        "shopt -s nullglob; rg --hidden SENTINEL nomatch*",
        "shopt -u failglob; shopt -s nullglob; timeout 5 grep -r SENTINEL nomatch*",
        "bash -O nullglob -c 'grep -r SENTINEL nomatch*'",
    ],
)
def test_a_glob_nullglob_drops_leaves_the_command_without_it(
    command: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)", "Edit(./.env)"]}})
    plain = decide("Bash", {"command": command.replace("nullglob", "failglob")}, ctx)
    decision = decide("Bash", {"command": command}, ctx)
    assert not any(word in plain.reason for word in ("searches", "writes")), plain
    assert decision.behavior == "ask", decision
    assert "searches" in decision.reason or "writes" in decision.reason, decision


def test_more_globs_than_nullglob_forms_are_tried_is_not_known(make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(cp *)"]}})
    command = "shopt -s nullglob; cp a* b* c* d* out/"
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", decision
    assert "nullglob" in decision.reason, decision


@pytest.mark.parametrize(
    "command",
    [
        "cat *",
        "cat * ; shopt -s dotglob",  # the change comes after the glob
        "shopt -u dotglob; cat *",
        "shopt -q dotglob && cat *",
        "shopt -s failglob; cat *",
        "set -f; cat *; set +f",
        "shopt -s nocaseglob; cat *.md",
        "shopt -s globstar; cat src/**/*.py",
        "for f in *.md; do wc -l src/*.py; done",
        "bash -O extglob -c 'cat *.md'",
    ],
)
def test_options_that_do_not_reach_the_file_keep_the_command_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(
        {"permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(shopt *)", "Bash(set *)"]}}
    )
    decision = decide("Bash", {"command": command}, ctx)
    # Not because of .env (the tree's `homelink`, outside the workspace, may ask: glob_disk.py)
    assert decision.behavior != "deny", decision
    assert ".env" not in decision.reason, decision


def _bash_expansions(pattern: str, options: list[str], ws: Path) -> list[str]:
    shopts = "".join(f"shopt -s {o}; " for o in options)
    out = subprocess.run(
        [
            "bash",
            "--norc",
            "--noprofile",
            "-c",
            f"shopt -s nullglob; {shopts}printf '%s\\0' {pattern}",
        ],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    ).stdout
    return [name for name in out.split("\0") if name]


_PIECES = ["*", "?", ".", "e", "E", "n", "v", "/", "**", "[.]", "[!a]", "[eE]", "s", "x"]


@pytest.fixture(scope="module")
def glob_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("globs")
    for name in (".env", "env", ".e/.env", "s/.env", "s/x/ENV", ".x/s/.v", "Sx/e.v", "E/nv"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("x")
    return ws


@settings(max_examples=300, deadline=None, database=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6),
    options=st.lists(st.sampled_from(OPTIONS), unique=True),
)
def test_every_name_bash_expands_a_glob_to_is_in_its_pattern(
    pieces: list[str], options: list[str], glob_tree: Path
) -> None:
    pattern = "".join(pieces).lstrip("/")
    if not pattern or not shutil.which("bash"):
        return
    (word,) = parse_command(f"cat {pattern}").invocations[0].argv[1:]
    forms = expand_nodot(glob_tokens(_folded(word), frozenset(options)))
    for name in _bash_expansions(pattern, options, glob_tree):
        found = tuple(_folded(name))
        assert any(globs_overlap(form, found) for form in forms), (pattern, options, name)


def _folded(path: str) -> str:
    """Without empty and `.` segments, as path_target reads a word (and the kernel a name)."""
    return "/".join(s for s in path.split("/") if s not in ("", "."))
