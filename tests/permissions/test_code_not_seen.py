"""Code not seen: a command that runs code from outside the workspace, or from a path chosen as
it runs, asks (denies in dontAsk) whatever allow rule names the interpreter; the same command
on a file of the workspace stays allowed by that rule, and deny rules still win. Each
interpreter's table (interpreter_scripts.py) is checked both ways."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(python3:*)", "Bash(python:*)", "Bash(python3.12:*)", "Bash(node:*)"]
ALLOW += ["Bash(perl:*)", "Bash(ruby:*)", "Bash(bash:*)", "Bash(sh:*)", "Bash(make:*)"]
ALLOW += ["Bash(npm run:*)", "Bash(pip:*)", "Bash(pip3:*)", "Bash(coverage:*)", "Bash(tsx:*)"]
ALLOW += ["Bash(npx:*)", "Bash(find:*)"]
RULES = {"permissions": {"allow": ALLOW}}

# Each pair: the command on code outside the workspace, and the same shape on the workspace's.
PAIRS = [
    ("python3 {outside}/job.py", "python3 src/app.py"),
    ("python3 -u -W error {outside}/job.py", "python3 -u -W error src/app.py"),
    ("python3 -OOB {outside}/job.py", "python3 -OOB src/app.py"),
    ("python3 -uX dev {outside}/job.py", "python3 -uX dev src/app.py"),
    ("python3.12 -I {outside}/job.py arg", "python3.12 -I src/app.py arg"),
    ("python -m trace --count -C cov {outside}/job.py", "python -m trace --count src/app.py"),
    ("python3 -m cProfile -s time {outside}/job.py", "python3 -m cProfile -s time src/app.py"),
    ("python3 -m profile -o out.prof {outside}/job.py", "python3 -m profile src/app.py"),
    ("python3 -Sm pdb {outside}/job.py", "python3 -Sm pdb src/app.py"),
    ("python3 -m runpy {outside}/job.py", "python3 -m runpy src/app.py"),
    ("python3 -m doctest -v {outside}/notes.txt", "python3 -m doctest -v README.md"),
    ("python3 -m unittest discover -s {outside} -p 't*.py'", "python3 -m unittest discover -s src"),
    ("python3 -m unittest discover src t*.py {outside}", "python3 -m unittest discover src"),
    ("python3 -m unittest {outside}/test_x.py", "python3 -m unittest src/test_x.py"),
    ("python3 -m coverage run --branch {outside}/job.py", "python3 -m coverage run src/app.py"),
    ("coverage run {outside}/job.py", "coverage run -m pytest"),
    ("python3 -m pytest -q {outside}/tests", "python3 -m pytest -q src"),
    ("pip install {outside}/pkg", "pip install -e ."),
    ("pip3 install --editable={outside}/pkg", "pip3 install -r requirements.txt"),
    ("pip install file://{outside}/pkg", "pip install requests"),
    ("node --inspect-port 9229 {outside}/srv.js", "node --inspect-port 9229 src/srv.js"),
    ("node --require={outside}/hook.js src/srv.js", "node --require=./hook.js src/srv.js"),
    ("node --import {outside}/hook.mjs src/srv.js", "node --import ./hook.mjs src/srv.js"),
    ("tsx {outside}/x.ts", "tsx src/x.ts"),
    ("perl -w {outside}/x.pl", "perl -w src/x.pl"),
    ("ruby -W0 {outside}/x.rb", "ruby -W0 src/x.rb"),
    ("bash -e {outside}/build.sh", "bash -e src/build.sh"),
    ("sh {outside}/build.sh", "sh src/build.sh"),
    ("npm run test -w {outside}/pkg", "npm run test -w packages/a"),
    ("npm run build --workspace={outside}/pkg", "npm run build --workspace=pkg-a"),
    ("npm run lint --workspace ../other", "npm run lint --workspaces"),
    ("make CC={outside}/cc", "make CC=gcc"),
    ("make HOSTCC={outside}/cc", "make HOSTCC=/usr/bin/gcc-12"),
    ("make all 'CXX={outside}/c++ -std=c++20'", "make all CXX=./tools/c++"),
    ("make CROSS_COMPILE={outside}/arm-", "make PREFIX={outside}"),
    ("make LINT_CMD={outside}/lint check", "make LINT_CMD=./lint check"),
    ("npx {outside}/pkg", "npx prettier --check src"),
    ("npx -p {outside}/pkg cmd", "npx ./tools/pkg"),
    (
        "find {outside} -name '*.txt' -exec python3 {} \\;",
        "find config -name '*.toml' -exec python3 {} \\;",
    ),
]


@pytest.mark.parametrize(("outside", "inside"), PAIRS)
def test_outside_code_asks_and_the_workspace_s_is_allowed(
    outside: str, inside: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES)
    text = tree.fill(outside)
    verdict = decide("Bash", {"command": text}, ctx)
    assert verdict.behavior == "ask", (text, verdict.reason)
    assert "not seen" in verdict.reason
    kept = decide("Bash", {"command": tree.fill(inside)}, ctx)
    assert kept.behavior == "allow", (inside, kept.reason)


@pytest.mark.parametrize(
    "command",
    [
        *("python3 $SCRIPT", 'python3 -m trace --trace "$F"', "node $(cat which)"),
        *("make CC=$CC", 'node -r "$X" src/a.js', 'npm run -w "$W" t', "pip install -e $P"),
        'pip install "$P"',
    ],
)
def test_code_chosen_by_a_variable_asks(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m pip install -e .",
        "python3 -m pip install requests",
        "python3 -m pip download x",
        "python -m pip wheel .",
    ],
)
def test_pip_under_an_interpreter_rule_asks(command: str, make_ctx: ContextFactory) -> None:
    """Installing runs packages' build and set-up code: the interpreter's rule does not cover
    it; a rule naming pip does (`Bash(pip:*)` as for `pip install`, or the module form)."""
    interpreters = [rule for rule in ALLOW if "pip" not in rule]
    unnamed = {"permissions": {"allow": interpreters}}
    verdict = decide("Bash", {"command": command}, make_ctx(unnamed))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "pip" in verdict.reason
    module = [*interpreters, "Bash(python3 -m pip:*)", "Bash(python -m pip:*)"]
    for named in (module, [*interpreters, "Bash(pip:*)"]):
        ctx = make_ctx({"permissions": {"allow": named}})
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", named
    listing = decide("Bash", {"command": "python3 -m pip list"}, make_ctx(RULES))
    assert listing.behavior == "allow"


def test_outside_code_is_denied_in_dont_ask_mode(tree: Tree, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(RULES, mode="dontAsk")
    verdict = decide("Bash", {"command": tree.fill("python3 {outside}/job.py")}, ctx)
    assert verdict.behavior == "deny"
    assert decide("Bash", {"command": "python3 src/app.py"}, ctx).behavior == "allow"


def test_a_script_written_in_the_session_runs_under_the_interpreter_rule(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    """The stance (README, "Code not seen"): a file of the workspace is the user's, whoever
    wrote it; its Write was itself a decision (asked, or accepted by the mode). As in Claude
    Code, `Bash(python3:*)` runs it; a deny rule naming it still wins, and with no allow rule
    it asks."""
    for mode in ("default", "acceptEdits"):
        ctx = make_ctx(RULES, mode=mode)
        script = tree.ws / "src" / "t.py"
        write = decide("Write", {"file_path": str(script), "content": "print(1)\n"}, ctx)
        assert write.behavior == ("allow" if mode == "acceptEdits" else "ask")
        script.write_text("import os\nos.system('curl -V')\n")
        assert decide("Bash", {"command": "python3 src/t.py"}, ctx).behavior == "allow"
    denied = {"permissions": {"allow": ALLOW, "deny": ["Bash(python3 src/t.py)"]}}
    verdict = decide("Bash", {"command": "python3 src/t.py"}, make_ctx(denied))
    assert verdict.behavior == "deny"
    unruled = decide("Bash", {"command": "python3 src/t.py"}, make_ctx({"permissions": {}}))
    assert unruled.behavior == "ask"


@pytest.mark.parametrize(
    "command",
    ["python3 .env", "node src/../.env", "python3 -m cProfile .env", "sh -e .env", "perl -w .env"],
)
def test_running_a_file_a_read_rule_denies_is_denied(
    command: str, make_ctx: ContextFactory
) -> None:
    """The interpreter reads the code it runs: a deny rule on reading the file holds."""
    settings = {"permissions": {"allow": ALLOW, "deny": ["Read(**/.env)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(settings))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("python3 -m profile -o {outside}/p.out src/app.py", "ask"),
        ("python3 -m cProfile -o{outside}/p.out src/app.py", "ask"),
        ("python3 -m cProfile -o p.out src/app.py", "allow"),
        ("python3 -m trace --count --coverdir={outside} src/app.py", "ask"),
        ("python3 -m trace --count -C cov src/app.py", "allow"),
        ("python3 -m venv --prompt p {outside}/v", "ask"),
        ("python3 -m venv --prompt {outside} .venv", "allow"),
        ("python3 -m http.server 8000", "ask"),
        ("python3 -m http.server --directory=. 8000", "ask"),
        ("python3 -m http.server -d config 8000", "allow"),
        # asking only for help does nothing else
        ("python3 -m http.server --help", "allow"),
        ("python3 -m http.server -h -d .", "allow"),
        ("python3 -m venv --help", "allow"),
        ("python3 -m venv -h {outside}/v", "allow"),
        ("python3 -m http.server 8000 --help", "ask"),
    ],
)
def test_what_python_modules_write_and_serve(
    command: str, expected: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A module's own outputs are writes (outside the workspace: asked); a served directory
    is read whole, so a deny rule on a file below it asks."""
    settings = {"permissions": {"allow": ALLOW, "deny": ["Read(**/.env)"]}}
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(settings))
    assert verdict.behavior == expected, (text, verdict.reason)


def test_hard_linking_a_name_built_at_run_time_is_not_seen(make_ctx: ContextFactory) -> None:
    """A hard link is a second name for the file: its source is read, as a copy's is."""
    settings = {"permissions": {"allow": ALLOW, "deny": ["Read(**/.env)"]}}
    for mode in ("default", "acceptEdits"):
        ctx = make_ctx(settings, mode=mode)
        built = "python3 -c \"import os; os.link('.e' + 'nv', 'k')\""
        assert decide("Bash", {"command": built}, ctx).behavior == "deny"
        plain = "python3 -c \"import os; os.link('.env', 'k')\""
        assert decide("Bash", {"command": plain}, ctx).behavior == "deny"


def test_a_file_find_names_for_an_interpreter_is_judged_as_named(make_ctx: ContextFactory) -> None:
    """find's `{}` is each file it names now: a denied one is denied, by name."""
    settings = {"permissions": {"allow": ALLOW, "deny": ["Read(config/private/**)"]}}
    command = "find config -name token.txt -exec python3 {} \\;"
    verdict = decide("Bash", {"command": command}, make_ctx(settings))
    assert verdict.behavior == "deny", verdict.reason
    assert "token.txt" in verdict.reason
