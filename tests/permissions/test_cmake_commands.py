"""cmake's file commands (`cmake -E create_symlink`, `copy`, `rm`, `tar`...) are judged as the
coreutils command each does the work of, so `Bash(cmake *)` does not let a link or copy of a
denied file through where `ln -s` or `cp` would be denied."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tether.permissions import PermissionContext, decide, load_rules

from .conftest import build_tree

POLICY = {
    "permissions": {
        "deny": ["Read(./.env)", "Read(./secrets/**)", "Edit(./.github/**)"],
        "allow": [
            f"Bash({program} *)"
            for program in [
                "cmake",
                "cat",
                "ln",
                "cp",
                "mv",
                "rm",
                "mkdir",
                "touch",
                "tar",
                "cmp",
                "sha256sum",
            ]
        ],
    }
}

# cmake's form, then the command it does the work of.
SAME = [
    ("cmake -E create_symlink ../secrets/key.pem src/ck", "ln -s -T ../secrets/key.pem src/ck"),
    ("cmake -E create_symlink ../.env src/e", "ln -s -T ../.env src/e"),
    ("cmake -E create_symlink README.md src/r", "ln -s -T README.md src/r"),
    ("cmake -E create_hardlink secrets/key.pem src/k", "ln -T secrets/key.pem src/k"),
    ("cmake -E copy secrets/key.pem src/", "cp secrets/key.pem src/"),
    ("cmake -E copy README.md .env src", "cp README.md .env src"),
    ("cmake -E copy -t src README.md .env", "cp -t src README.md .env"),
    ("cmake -E copy README.md src/", "cp README.md src/"),
    ("cmake -E copy_if_different .env src/x", "cp .env src/x"),
    ("cmake -E copy README.md .github/x", "cp README.md .github/x"),
    ("cmake -E copy_directory secrets out", "cp -rL secrets/. out"),
    ("cmake -E copy_directory src .github", "cp -rL src/. .github"),
    ("cmake -E rename .env x", "mv -T .env x"),
    ("cmake -E rename README.md .github/x", "mv -T README.md .github/x"),
    ("cmake -E rename README.md NOTES.md", "mv -T README.md NOTES.md"),
    ("cmake -E rm -rf .github", "rm -rf .github"),
    ("cmake -E rm src/app.py -r -- -f .github", "rm -- src/app.py -f .github"),
    ("cmake -E rm -f src/app.py", "rm -f src/app.py"),
    ("cmake -E remove -f .github/workflows/ci.yml", "rm -f .github/workflows/ci.yml"),
    ("cmake -E remove_directory .github", "rm -r .github"),
    ("cmake -E make_directory build .github/new", "mkdir -p build .github/new"),
    ("cmake -E make_directory build", "mkdir -p build"),
    ("cmake -E touch .github/x", "touch .github/x"),
    ("cmake -E touch_nocreate build/x", "touch build/x"),
    ("cmake -E tar cf out.tar secrets", "tar cf out.tar secrets"),
    ("cmake -E tar cfz .github/x.tgz src", "tar czf .github/x.tgz src"),
    ("cmake -E tar cf out.tar --format=gnutar -- src", "tar cf out.tar --format=gnutar src"),
    ("cmake -E tar cf out.tar src", "tar cf out.tar src"),
    ("cmake -E tar xf out.tar", "tar xf out.tar"),
    ("cmake -E cat .env", "cat .env"),
    ("cmake -E cat -- README.md", "cat README.md"),
    ("cmake -E compare_files --ignore-eol .env README.md", "cmp .env README.md"),
    ("cmake -E sha256sum secrets/api.key", "sha256sum secrets/api.key"),
    ("cmake -E sha256sum README.md", "sha256sum README.md"),
]


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> PermissionContext:
    tree = build_tree(tmp_path_factory.mktemp("cmake"))
    rules = load_rules([(tree.ws / ".claude" / "settings.json", POLICY)], seed_yaml=None)
    return PermissionContext(
        mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
    )


@pytest.mark.parametrize(("cmake", "same"), SAME)
def test_a_file_command_is_judged_as_the_command_it_does_the_work_of(
    cmake: str, same: str, ctx: PermissionContext
) -> None:
    got = decide("Bash", {"command": cmake}, ctx)
    want = decide("Bash", {"command": same}, ctx)
    assert got.behavior == want.behavior, (cmake, got, want)
    if want.behavior != "allow":  # allowed, each names its own rule
        assert got.reason == want.reason, (cmake, got, want)


@pytest.mark.parametrize(
    "command",
    [
        "cmake -E create_symlink ../secrets/key.pem src/ck; cat src/ck",
        "cmake -E create_symlink ../.env src/e",
        "cmake -E copy_directory secrets out",
        "cmake -E rm -rf .github",
    ],
)
def test_cmake_allowed_by_a_rule_does_not_reach_denied_files(
    command: str, ctx: PermissionContext
) -> None:
    assert decide("Bash", {"command": command}, ctx).behavior == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "cmake -E echo hi",
        "cmake --build build",
        "cmake -E copy README.md src/",
        "cmake -E make_directory build",
        # Forms cmake refuses are not mapped; their words are still files it may open.
        "cmake -E create_symlink a b c",
    ],
)
def test_other_cmake_commands_stay_allowed_by_the_rule(
    command: str, ctx: PermissionContext
) -> None:
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_names_a_symlink_target_from_the_links_directory(tmp_path: Path) -> None:
    """The reading behind the mapping: the link's target is named from `src/`, as `ln -s`'s
    is, so `src/ck` leads to the secret; and copy_directory follows symlinks (`cp -rL`)."""
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text("k\n")
    (tmp_path / "src").mkdir()
    subprocess.run(
        ["cmake", "-E", "create_symlink", "../secrets/key", "src/ck"], cwd=tmp_path, check=True
    )
    assert (tmp_path / "src" / "ck").resolve() == (tmp_path / "secrets" / "key").resolve()
    subprocess.run(["cmake", "-E", "copy_directory", "src", "out"], cwd=tmp_path, check=True)
    assert not (tmp_path / "out" / "ck").is_symlink()
    assert (tmp_path / "out" / "ck").read_text() == "k\n"


@given(
    sub=st.sampled_from(["rm", "remove", "remove_directory"]),
    flags=st.lists(st.sampled_from(["-f", "-r", "-R", "-rf", "-fR"]), max_size=2),
    target=st.sampled_from(["src/app.py", "build", "src"]),
    rule=st.sampled_from(["Bash(rm *)", "Bash(rm:*)", "Bash(rm -- *)"]),
)
@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_deny_rule_on_rm_covers_cmakes_removals(
    sub: str, flags: list[str], target: str, rule: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """`cmake -E remove` and `remove_directory` delete as `rm -f` and `rm -rf` do: a deny
    rule on rm holds whatever cmake's subcommand or flags (they used to pass `Bash(rm *)`)."""
    words = [f for f in flags if sub == "rm" or f == "-f"] if sub != "remove_directory" else []
    command = " ".join(["cmake", "-E", sub, *words, target])
    decision = decide("Bash", {"command": command}, _denying(rule, tmp_path_factory))
    assert decision.behavior == "deny", (command, decision)


_DENYING: dict[str, PermissionContext] = {}


def _denying(rule: str, factory: pytest.TempPathFactory) -> PermissionContext:
    if rule not in _DENYING:
        tree = build_tree(factory.mktemp("cmake-rm"))
        settings_ = {"permissions": {"allow": ["Bash(cmake *)"], "deny": [rule]}}
        rules = load_rules([(tree.ws / ".claude" / "settings.json", settings_)], seed_yaml=None)
        _DENYING[rule] = PermissionContext(
            mode="default", rules=rules, workspace=tree.ws, cwd=tree.ws, home=tree.home
        )
    return _DENYING[rule]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_remove_directory_deletes_what_the_directory_holds(tmp_path: Path) -> None:
    """The reading behind `rm -r -f`: cmake removes the directory and all below it."""
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "f").write_text("x")
    subprocess.run(["cmake", "-E", "remove_directory", "d", "missing"], cwd=tmp_path, check=True)
    assert list(tmp_path.iterdir()) == []
