"""A file run as a program by its path, typed or through a wrapper or a program that runs it
(`./tools/x.sh`, `timeout 5 tools/x.sh`, `git -c core.fsmonitor=tools/x.sh status`): judged as
the command line the kernel runs for it, `sh FILE` for a text file without `#!`, the
interpreter its `#!` line names otherwise; the same judgement as `sh FILE`, in every mode."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(bash *)", "Bash(sh *)", "Bash(git *)", "Bash(tar *)", "Bash(rsync *)"),
            *("Bash(timeout *)", "Bash(env *)", "Bash(find *)", "Bash(xargs *)"),
            *("Bash(printf *)", "Bash(echo *)", "Bash(nice *)", "Bash(nohup *)"),
        ],
        "deny": ["Bash(curl *)", "Bash(nc *)"],
    }
}
MODES = ("default", "acceptEdits", "bypassPermissions")


@pytest.fixture
def scripts(tree: Tree) -> Tree:
    tools = tree.ws / "tools"
    tools.mkdir()
    (tools / "fetch.sh").write_text("#!/bin/sh\necho fetching\ncurl -sS http://127.0.0.1:9/x\n")
    (tools / "listen").write_text("if true; then nc -l 1; fi\n")  # no `#!`: a shell runs it
    (tools / "dashed").write_text("#!/usr/bin/env -S bash -e\nnc -l 1\n")
    (tools / "calls.sh").write_text("#!/bin/bash\nexec tools/listen\n")
    (tools / "via").write_text("#!tools/listen\n")  # an interpreter that is itself a script
    (tools / "link.sh").symlink_to("fetch.sh")
    (tools / "build.sh").write_text("#!/bin/sh\necho building\nls\n")
    (tools / "prog").write_bytes(b"\x7fELF\x02\x01\x01\0\0\0curl")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "./tools/fetch.sh",
        "tools/fetch.sh x",
        "tools/listen",
        "tools/dashed",
        "tools/calls.sh",
        "tools/via",
        "tools/link.sh",
        "cd tools && ./fetch.sh",
        "timeout 5 tools/fetch.sh",
        "env A=1 tools/listen",
        "nice -n 5 nohup tools/fetch.sh",
        "xargs -a /dev/null tools/fetch.sh",
        "find . -maxdepth 0 -exec tools/fetch.sh {} \\;",
        "bash -c tools/listen",
        "git -c core.fsmonitor=tools/fetch.sh status",
        "git -c core.pager=tools/listen log",
        "git -c 'alias.x=!tools/fetch.sh' x",
        "tar -I tools/fetch.sh -cf /tmp/x.tar src",
        "tar --checkpoint-action=exec=tools/listen -cf /tmp/x.tar src",
        "rsync -e tools/fetch.sh src h:d",
    ],
)
def test_a_file_run_by_its_path_is_judged_as_its_script(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "is denied by" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "printf 'curl -sS http://127.0.0.1:9/x\\n' > s; ./s",
        "echo 'nc -l 1' > tools/build.sh && timeout 5 tools/build.sh",
        "tools/build.sh; echo 'nc -l 1' > tools/build.sh",
        "./missing/$(echo x)",
    ],
)
def test_a_run_file_not_read_is_denied_in_bypass(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


@pytest.mark.parametrize(
    "command",
    [
        "tools/long.sh",
        "./tools/long.sh x",
        "timeout 5 tools/long.sh",
        "tools/blank.sh",
        "tools/net -sS http://127.0.0.1:9/x",
        "tools/bin/echo http://127.0.0.1:9/x",
        "cd tools/bin && ./echo x",
        "env tools/net x",
        "find . -maxdepth 0 -exec tools/net x \\;",
    ],
)
def test_a_file_is_judged_as_the_kernel_runs_it(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    """A `#!` line the kernel refuses (its interpreter cut at 256 bytes, or only spaces) is
    run by bash as a shell script; a link to a program runs that program, whatever its name."""
    tools = scripts.ws / "tools"
    (tools / "long.sh").write_text("#!/" + "a" * 300 + "\ncurl -sS http://127.0.0.1:9/x\n")
    (tools / "blank.sh").write_text("#!" + " " * 300 + "\nnc -l 1\n")
    curl = tools / "curl"
    curl.write_bytes(b"\x7fELF\x02\x01\x01\0\0\0curl")
    (tools / "net").symlink_to("curl")
    (tools / "bin").mkdir()
    (tools / "bin" / "echo").symlink_to(curl)
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


def test_a_long_interpreter_line_the_kernel_runs_is_its_interpreters(
    scripts: Tree, make_ctx: ContextFactory
) -> None:
    """An interpreter ending within the 256 bytes runs, its argument cut short."""
    (scripts.ws / "tools" / "py").write_text("#!/usr/bin/python3 -c " + "x" * 300 + "\n")
    rules = {"permissions": {"deny": ["Bash(python3 -c *)"]}}
    verdict = decide("Bash", {"command": "tools/py"}, make_ctx(rules, mode="bypassPermissions"))
    assert verdict.behavior == "deny", verdict.reason


@pytest.mark.parametrize("command", ["tools/build.sh", "timeout 5 ./tools/build.sh", "tools/prog"])
def test_a_harmless_run_file_and_a_binary_run_in_bypass(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "allow", (command, bypass.reason)


def test_an_interpreter_script_is_judged_as_its_interpreter(
    scripts: Tree, make_ctx: ContextFactory
) -> None:
    """`#!/usr/bin/python3 -c` runs the file as python3 -c would: its rule holds."""
    (scripts.ws / "tools" / "py").write_text("#!/usr/bin/python3 -c\nimport os\n")
    rules = {"permissions": {"deny": ["Bash(python3 -c *)"]}}
    verdict = decide("Bash", {"command": "tools/py"}, make_ctx(rules, mode="bypassPermissions"))
    assert verdict.behavior == "deny", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "git apply /tmp/x.patch && bash tools/build.sh",
        "git stash pop; tools/build.sh",
        "git checkout main -- tools; . tools/build.sh",
        "git am < /tmp/x.mbox && timeout 5 tools/build.sh",
        "git cherry-pick abc; ./tools/build.sh",
        "git pull && sh tools/build.sh",
        "git bisect run tools/build.sh",  # checks out each commit it tries
        "git checkout-index -f -a && bash tools/build.sh",
        "git checkout-index --all -f; tools/build.sh",
        "git checkout-index -fua && sh tools/build.sh",
        "git ls-files | git checkout-index --stdin -f && bash tools/build.sh",
        "bash tools/build.sh; git merge topic",  # a loop may run it again after
    ],
)
def test_a_script_git_may_write_is_not_read(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    """git writes files of the tree it cannot name before the script runs: what the script
    holds then is not what tether reads now."""
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)
    assert "which this command writes" in bypass.reason


@pytest.mark.parametrize(
    "command",
    ["git status && bash tools/build.sh", "git apply --check /tmp/x.patch && tools/build.sh"],
)
def test_a_script_after_git_that_writes_nothing_is_read(
    command: str, scripts: Tree, make_ctx: ContextFactory
) -> None:
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "allow", (command, bypass.reason)
