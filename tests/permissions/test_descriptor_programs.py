"""A program run through a process's directory (`exec 5<PROG; /dev/fd/5`, `/proc/self/fd/N`,
`/dev/stdin`, `cd /dev/fd && ./5`) may be any program: judged as code not seen, so deny rules
naming the program hold, in bypassPermissions too."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tether.permissions import Mode, PermissionContext, decide, load_rules

FORMS = [
    "exec 5<{bin}; /dev/fd/5 {marker}",
    "exec 5<{bin}; /proc/self/fd/5 {marker}",
    "exec 6<{bin} && /proc/thread-self/fd/6 {marker}",
    "exec 5<{bin}; /proc/self/fd/../fd/5 {marker}",
    "exec 5<{bin}; cd /dev/fd && ./5 {marker}",
    "{{ /dev/stdin {marker}; }} < {bin}",
]


@pytest.fixture
def sentinel(tmp_path: Path) -> Path:
    touch = shutil.which("touch")
    assert touch is not None
    program = tmp_path / "sentinel"
    shutil.copy(touch, program)
    return program


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize("form", FORMS)
def test_a_program_through_a_descriptor_meets_the_deny_rule(
    tmp_path: Path, sentinel: Path, form: str, mode: Mode
) -> None:
    marker = tmp_path / "ran"
    command = form.format(bin=sentinel, marker=marker)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, check=False)
    ran = marker.exists()
    policy = {"permissions": {"deny": ["Bash(sentinel *)"]}}
    rules = load_rules([(tmp_path / "s.json", policy)], seed_yaml=None)
    ctx = PermissionContext(mode=mode, rules=rules, workspace=tmp_path, cwd=tmp_path, home=tmp_path)
    decision = decide("Bash", {"command": command}, ctx)
    assert decision.behavior == "deny", (command, decision.reason)
    if "/dev/stdin" not in form:
        assert ran, command  # bash really runs the sentinel this way


def test_reading_and_writing_descriptors_is_not_running_them(tmp_path: Path) -> None:
    rules = load_rules([(tmp_path / "s.json", {"permissions": {}})], seed_yaml=None)
    ctx = PermissionContext(
        mode="bypassPermissions", rules=rules, workspace=tmp_path, cwd=tmp_path, home=tmp_path
    )
    for command in ("echo hi > /dev/fd/2", "ls /dev/fd/", "/usr/bin/env true"):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command
