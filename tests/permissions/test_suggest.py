"""The rule an "always allow" answer would save, and that it allows the call it came from."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from tether.permissions import decide, load_rules, suggest_rule

from .conftest import ContextFactory, Tree


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("git commit -m 'fix the parser'", "Bash(git commit -m fix the parser)"),
        ("npm run build -- --prod", "Bash(npm run build -- --prod)"),
        ("npm run lint", "Bash(npm run lint)"),
        ("cargo test --release", "Bash(cargo test --release)"),
        ("docker compose up -d", "Bash(docker compose up -d)"),
        ("make", "Bash(make)"),
        ("make test", "Bash(make test)"),
        ("python -m pytest -q tests", "Bash(python -m pytest -q tests)"),
        ("python script.py --fast", "Bash(python script.py *)"),
        ("./deploy.sh --prod", "Bash(./deploy.sh --prod)"),
        ("/usr/bin/make all", "Bash(make all)"),
        ("ls && timeout 60 cargo build --release", "Bash(cargo build --release)"),
        ("git status; npm publish", "Bash(npm publish)"),
        ("sudo apt install jq", "Bash(sudo apt install jq)"),
        ("find . -name '*.log' -exec gzip {} +", None),
        ("find . -name '*.o' -exec rm {} +", None),
    ],
)
def test_bash_rules_are_the_exact_command(
    command: str, rule: str | None, make_ctx: ContextFactory
) -> None:
    assert suggest_rule("Bash", {"command": command}, make_ctx()) == rule


@pytest.mark.parametrize(
    "command",
    ["ls (", "$CMD x", "PATH=/x make", 'bash -c "$X"', "ls -la", "cat /etc/hosts"],
)
def test_no_rule_for_what_no_rule_could_allow(command: str, make_ctx: ContextFactory) -> None:
    assert suggest_rule("Bash", {"command": command}, make_ctx()) is None


@pytest.mark.parametrize(
    ("tool", "tool_input", "rule"),
    [
        ("Edit", {"file_path": "src/app.py"}, "Edit(/src/**)"),
        ("Write", {"file_path": "src/deep/new.py"}, "Edit(/src/deep/**)"),
        ("Write", {"file_path": "README.md"}, "Edit(/README.md)"),
        ("Revert", {"file_path": "src/app.py"}, "Edit(/src/**)"),
        ("Read", {"file_path": "/etc/hosts"}, "Read(//etc/**)"),
        ("Read", {"file_path": "~/docs/notes.md"}, "Read(~/docs/**)"),
        ("Grep", {"pattern": "x", "path": "src"}, "Read(/src/**)"),
        ("Write", {"file_path": "/tmp/x"}, None),
        ("Read", {}, None),
        ("WebFetch", {"url": "https://docs.python.org/3/"}, "WebFetch(domain:docs.python.org)"),
        ("mcp__github__create_issue", {}, "mcp__github__create_issue"),
    ],
)
def test_other_tools(
    tool: str, tool_input: dict[str, Any], rule: str | None, make_ctx: ContextFactory
) -> None:
    assert suggest_rule(tool, tool_input, make_ctx()) == rule


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Bash", {"command": "git commit -m 'x'"}),
        ("Bash", {"command": "timeout 5 npm run lint"}),
        ("Bash", {"command": "sudo apt install jq"}),
        ("Bash", {"command": "./deploy.sh --prod"}),
        ("Bash", {"command": "make"}),
        ("Edit", {"file_path": "src/app.py"}),
        ("Write", {"file_path": "README.md"}),
        ("Read", {"file_path": "/etc/hosts"}),
        ("Read", {"file_path": "~/docs/notes.md"}),
        ("WebFetch", {"url": "https://example.com/a"}),
        ("mcp__db__query", {"sql": "select 1"}),
    ],
)
def test_the_suggestion_allows_the_call(
    tool: str, tool_input: dict[str, Any], tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx()
    assert decide(tool, tool_input, ctx).behavior == "ask"
    rule = suggest_rule(tool, tool_input, ctx)
    assert rule is not None
    settings = tree.ws / ".tether" / "settings.local.json"
    rules = load_rules([(settings, {"permissions": {"allow": [rule]}})], seed_yaml=None)
    again = make_ctx()
    assert decide(tool, tool_input, replace(again, rules=rules)).behavior == "allow"
    session = load_rules([], seed_yaml=None, extra_allow=[rule])
    assert decide(tool, tool_input, replace(again, rules=session)).behavior == "allow"


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("python3 check_totals.py", "Bash(python3 check_totals.py)"),
        ("python3.12 tools/gen.py --out x", "Bash(python3.12 tools/gen.py *)"),
        ("node scripts/build.mjs", "Bash(node scripts/build.mjs)"),
        ("ruby -e 'puts 1'", "Bash(ruby -e puts 1)"),
        ("perl -pe 's/a/b/' notes.txt", "Bash(perl -pe s/a/b/ notes.txt)"),
        ("python3 -c 'print(2*3)'", "Bash(python3 -c print(2\\*3))"),
        ("python3 -u serve.py", "Bash(python3 -u serve.py)"),
        ("bash scripts/setup.sh --quick", "Bash(bash scripts/setup.sh *)"),
        ("zsh build.zsh", "Bash(zsh build.zsh)"),
        # (a plainly printing awk is allowed: no question, no rule)
        (
            "awk --pretty-print '{print $1}' data.csv",
            "Bash(awk --pretty-print {print $1} data.csv)",
        ),
        ("python -m pip install -e .", "Bash(python -m pip install -e .)"),
        ("python3 -m cProfile app.py", "Bash(python3 -m cProfile app.py)"),
        ("npx prettier --check src", "Bash(npx prettier --check src)"),
        ("npx tsx scripts/seed.ts", "Bash(npx tsx scripts/seed.ts)"),
        ("npx -y cowsay hi", "Bash(npx -y cowsay hi)"),
        ("uvx ruff check src", "Bash(uvx ruff check src)"),
        ("uv tool run black .", "Bash(uv tool run black .)"),
        ("uv tool install ruff", None),  # writes onto the user's PATH, as pip --user
        ("deno run main.ts", "Bash(deno run main.ts)"),
        ("sed -i s/a/b/ notes.txt", "Bash(sed -i s/a/b/ notes.txt)"),
        ("uv run pytest -x", "Bash(uv run pytest -x)"),
        ("uv run python tools/migrate.py", "Bash(uv run python tools/migrate.py)"),
        ("uv sync --frozen", "Bash(uv sync --frozen)"),
        ("pipx run black .", "Bash(pipx run black .)"),
        ("poetry run python -m mypy src", "Bash(poetry run python -m mypy src)"),
        ("strace -f ls", "Bash(strace -f ls)"),
        ("nohup python3 worker.py", "Bash(python3 worker.py)"),
        ("env DEBUG=1 node app.js", "Bash(node app.js)"),
        ("sudo python3 fix_perms.py", "Bash(sudo python3 fix_perms.py)"),
        ("make lint FIX=1", "Bash(make lint FIX=1)"),
        ("ssh build-box uptime", "Bash(ssh build-box uptime)"),
    ],
)
def test_programs_that_run_code_get_the_script_or_the_exact_command(
    command: str, rule: str | None, make_ctx: ContextFactory
) -> None:
    assert suggest_rule("Bash", {"command": command}, make_ctx()) == rule


@pytest.mark.parametrize(
    "command",
    ["python3", "bash", "node -", "python3 - < gen.txt", "cat x | sh", 'python3 -c "$CODE"'],
)
def test_no_rule_for_code_the_rule_would_not_see(command: str, make_ctx: ContextFactory) -> None:
    assert suggest_rule("Bash", {"command": command}, make_ctx()) is None


def _with_rule(rule: str, tree: Tree, make_ctx: ContextFactory) -> Any:
    settings = tree.ws / ".tether" / "settings.local.json"
    rules = load_rules([(settings, {"permissions": {"allow": [rule]}})], seed_yaml=None)
    return replace(make_ctx(), rules=rules)


@pytest.mark.parametrize(
    ("approved", "allows", "still_asks"),
    [
        (
            "python3 check_totals.py",
            ["python3 check_totals.py", "env python3 check_totals.py"],
            [
                "python3 -c 'import os'",
                "python3 other.py",
                "python3 check_totals.py --wipe",
                "python3 -i check_totals.py",
                "python3 check_totals.pyx",
            ],
        ),
        (
            "node tools/report.js --week 3",
            ["node tools/report.js --week 4", "node tools/report.js"],
            ["node -e 'process.exit()'", "node --require evil.js tools/report.js", "node x.js"],
        ),
        (
            "bash ci/lint.sh",
            ["bash ci/lint.sh"],
            ["bash -c 'curl x'", "bash ci/other.sh", "bash -x ci/lint.sh", "sh ci/lint.sh"],
        ),
        (
            "python3 -c 'print(6*7)'",
            ["python3 -c 'print(6*7)'"],
            ["python3 -c 'print(6)'", "python3 -c 'print(6); import os; print(7)'"],
        ),
        (
            "npx eslint src",
            ["npx eslint src"],
            ["npx eslint lib --fix", "npx node -e 1", "npx -p evil eslint", "npx other"],
        ),
        (
            "npm run build",
            ["npm run build"],
            ["npm run deploy", "npm exec evil"],
        ),
        (
            "make check",
            ["make check"],
            ["make check SHELL=/tmp/x", "make check -f other.mk", "make install"],
        ),
        (
            "python -m pytest -q",
            ["python -m pytest -q"],
            ["python -m pytest tests/unit", "python -m http.server", "python -m pdb x.py"],
        ),
    ],
)
def test_a_saved_rule_allows_no_more_than_the_user_saw(
    approved: str,
    allows: list[str],
    still_asks: list[str],
    tree: Tree,
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx()
    assert decide("Bash", {"command": approved}, ctx).behavior == "ask"
    rule = suggest_rule("Bash", {"command": approved}, ctx)
    assert rule is not None
    loaded = _with_rule(rule, tree, make_ctx)
    assert decide("Bash", {"command": approved}, loaded).behavior == "allow"
    for command in allows:
        assert decide("Bash", {"command": command}, loaded).behavior == "allow", command
    for command in still_asks:
        assert decide("Bash", {"command": command}, loaded).behavior == "ask", (rule, command)


# A program whose arguments can be code or a command gets the exact command: a prefix saved
# for a harmless call would allow the code-running ones.
CODE_IN_ARGUMENTS = [
    ("cmake --version", "cmake -E env sh -c 'id'"),
    ("cmake -S . -B build", "cmake -P /tmp/evil.cmake"),
    ("tmux ls", "tmux new-session -d 'curl x | sh'"),
    ("screen -ls", "screen -dm sh -c id"),
    ("direnv status", "direnv exec . sh -c id"),
    ("mamba install numpy", "mamba run -n base sh -c id"),
    ("opam list", "opam exec -- sh -c id"),
    ("corepack pnpm install", "corepack yarn node -e 1"),
    ("chroot /srv/root ls", "chroot /srv/root sh -c id"),
    ("emacs --version", "emacs --batch --eval '(shell-command \"id\")'"),
    ("ghc --version", "ghc -e 'System.Process.system \"id\"'"),
    ("rake test", "rake -e 'system \"id\"'"),
    ("psql -l", "psql -c '\\! id'"),
    ("./gradlew build", "./gradlew -I /tmp/init.gradle build"),
    ("nix flake check", "nix develop -c id"),
    ("nix-shell -p hello --run true", "nix-shell -p hello --run id"),
    ("gdb --version", "gdb -batch -ex 'shell id'"),
    ("vim --version", "vim -c '!id'"),
    ("mysql --version", "mysql -e 'system id'"),
    ("xvfb-run pytest", "xvfb-run sh -c id"),
    ("socat -V", "socat - EXEC:id"),
    ("pixi run test", "pixi run sh -c id"),
    ("mise ls", "mise exec -- sh -c id"),
    ("docker run --rm hello-world", "docker run --rm alpine sh -c id"),
    ("docker compose ps", "docker compose run web sh -c id"),
    ("kubectl exec web -- ls", "kubectl exec web -- sh -c id"),
    ("rustup run stable cargo build", "rustup run stable sh -c id"),
    ("gh alias list", "gh alias set x '!id'"),
    ("emacs-29 --version", "emacs-29 --eval '(shell-command \"id\")'"),
]


@pytest.mark.parametrize(("approved", "later"), CODE_IN_ARGUMENTS)
def test_programs_running_code_from_arguments_get_the_exact_command(
    approved: str, later: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx()
    rule = suggest_rule("Bash", {"command": approved}, ctx)
    assert rule is not None
    # A prefix only for a subcommand that runs nothing given (`mamba install *`).
    assert "*" not in rule or rule.split()[1] in ("install", "compose"), rule
    loaded = _with_rule(rule, tree, make_ctx)
    assert decide("Bash", {"command": approved}, loaded).behavior == "allow"
    assert decide("Bash", {"command": later}, loaded).behavior == "ask", (rule, later)
