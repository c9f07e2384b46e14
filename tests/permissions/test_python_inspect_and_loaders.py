"""`python3 -i` reads code from its input after its script, `-c` code or `-m` module; modules
that load or import the files they are given (`-m pickle`, `-m pydoc`, `-m inspect`) run
those files as code."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(python3 *)", "Bash(echo *)"],
        "deny": ["Bash(curl *)", "Read(**/.env)"],
    }
}

INSPECTED = [
    "python3 -i -c 'print(1)' <<< 'import os'",
    "python3 -ic 1 <<< CODE",
    "python3 -iq -c pass <<< CODE",
    "python3 -qi -c pass <<< CODE",
    "python3 -X dev -i -c pass <<< CODE",
    "python3 -i src/app.py <<< CODE",
    "python3 -i -m json.tool README.md <<< CODE",
    "echo CODE | python3 -i -c 1",
    "python3 -i -c 1 < <(echo CODE)",
    "python3 -i -c 1 <<'EOF'\nimport os\nEOF",
    "python3 -i -c 1 < {outside}/data.txt",
]


@pytest.mark.parametrize("command", INSPECTED)
def test_python_i_reads_its_input_as_code(
    command: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "deny"
    assert "input" in decision.reason


@pytest.mark.parametrize(
    "command",
    [
        "python3 -i -c 1",
        "python3 -i src/app.py",
        "python3 -c 1 <<< text",
        "python3 -W i -c 1 <<< text",
        "python3 -Wi -c 1 <<< text",
        "python3 -Xi -c 1 <<< text",
        "python3 src/app.py < README.md",
    ],
)
def test_without_i_or_without_input_no_code_is_read_from_it(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"


def test_inline_code_is_still_judged_with_i(make_ctx: ContextFactory) -> None:
    command = "python3 -i -c 'import os; os.system(\"curl -V\")'"
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m pickle {outside}/evil.pkl",
        "python3 -m pickle README.md {outside}/evil.pkl",
        "python3 -m pydoc {outside}/evil.py",
        "python3 -m pydoc -w {outside}/evil.py",
        "python3 -m pydoc -w ../outside/evil.py",
        "python3 -m inspect {outside}/evil.py",
    ],
)
def test_modules_that_load_the_files_they_are_given_run_them_as_code(
    command: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    (tree.outside / "evil.py").write_text("import os\n")
    (tree.outside / "evil.pkl").write_bytes(b"x")
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior == "ask"
    assert "evil" in decision.reason


@pytest.mark.parametrize(
    "command", ["python3 -m pydoc json", "python3 -m pickle src/app.py", "python3 -m inspect json"]
)
def test_the_same_modules_on_the_workspace_or_the_library_stay_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"
