"""Modules run as programs (`python3 -m MODULE`) are judged by what each does besides the files
its words name: python-dotenv reads `.env` unasked, `gzip`/`json.tool`/formatters write the
files their positionals imply, `zipapp` reads a whole tree into its archive, `compileall`
writes byte code (into the interpreter's own directories when given none), `sqlite3` SQL
opens files it names, `dotenv run` and `webbrowser` run programs. Ordinary uses stay allowed."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(python3:*)", "Bash(python:*)"],
        "deny": ["Bash(wget:*)", "Read(**/.env)", "Edit(.github/**)"],
    }
}

DENIED = [
    "python3 -m dotenv list",
    "python -m dotenv get KEY",
    "python3 -m dotenv -f src/link_env list",
    "python3 -m dotenv --file=.env run printenv",
    "python3 -m dotenv run wget x",
    "python3 -m gzip .github/workflows/ci.yml",
    "python3 -m gzip -d .github/workflows/ci.yml.gz",
    "python3 -m json.tool README.md .github/workflows/ci.yml",
    "python3 -m black .github/workflows/x.py",
    "python3 -m isort .github/x.py",
    "python3 -m autopep8 -i .github/x.py",
    "python3 -m ruff format .github",
    "python3 -m webbrowser https://example.com",
]


@pytest.mark.parametrize("command", DENIED)
def test_module_behaviour_meets_deny_rules(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


ASKED = [
    "python3 -m zipapp src -o app.pyz",
    "python3 -m zipapp . --output=x.pyz",
    "python3 -m compileall -q",
    "python3 -m compileall {outside}",
    "python3 -m sqlite3 db.sqlite \"ATTACH '.github/x' AS y; CREATE TABLE y.t(a)\"",
    "python3 -m sqlite3 db.sqlite \"vacuum into '{outside}/copy'\"",
    "python3 -m ensurepip --upgrade",
    "python3 -m twine upload dist/*",
    "python3 -m json.tool README.md {outside}/out.json",
]


@pytest.mark.parametrize("command", ASKED)
def test_module_behaviour_is_asked(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior in ("ask", "deny"), decision


ALLOWED = [
    "python3 -m dotenv -f config/app.toml list",
    "python3 -m compileall -q src",
    "python3 -m compileall -q .",
    "python3 -m gzip README.md",
    "python3 -m json.tool config/app.toml",
    "python3 -m black --check src",
    "python3 -m black src",
    "python3 -m ruff check src",
    "python3 -m sqlite3 db.sqlite 'select 1'",
    "python3 -m venv .venv",
    "python3 -m twine check dist/x.whl",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_ordinary_module_uses_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
