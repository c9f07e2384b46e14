"""A workspace with secrets, symlinks and a fake home, and contexts built over it."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tether.permissions import Decision, Mode, PermissionContext, decide, load_rules


@dataclass(frozen=True)
class Tree:
    root: Path
    ws: Path
    home: Path
    outside: Path

    def fill(self, text: str) -> str:
        """`{ws}`, `{home}`, `{outside}` in corpus text, replaced by this tree's paths."""
        for name in ("ws", "home", "outside"):
            text = text.replace("{" + name + "}", str(getattr(self, name)))
        return text

    def write(self, files: Mapping[str, str]) -> None:
        """Write `files` (paths relative to the workspace, directories made)."""
        for name, text in files.items():
            path = self.ws / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)


def build_tree(root: Path) -> Tree:
    ws, home, outside = root / "ws", root / "home", root / "outside"
    files = {
        ws / ".env": "KEY=1\n",
        ws / ".env.example": "KEY=\n",
        ws / "README.md": "# project\n",
        ws / "src" / "app.py": "print('hi')\n",
        ws / "secrets" / "key.pem": "pem\n",
        ws / "secrets" / "api.key": "key\n",
        ws / "config" / "private" / "token.txt": "t\n",
        ws / "config" / "app.toml": "x = 1\n",
        ws / ".github" / "workflows" / "ci.yml": "on: push\n",
        ws / ".git" / "config": "[core]\n",
        home / ".ssh" / "id_rsa": "private\n",
        home / ".aws" / "credentials": "aws\n",
        home / ".bashrc": "# rc\n",
        home / "docs" / "notes.md": "notes\n",
        outside / "data.txt": "data\n",
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    os.symlink("../.env", ws / "src" / "link_env")
    os.symlink(home / ".ssh" / "id_rsa", ws / "src" / "link_ssh")
    os.symlink(home, ws / "homelink")
    return Tree(root, ws, home, outside)


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    return build_tree(tmp_path)


ContextFactory = Callable[..., PermissionContext]


@pytest.fixture
def make_ctx(tree: Tree) -> ContextFactory:
    """`make_ctx(settings={...}, seed="yaml text", mode="plan", cwd=path, **context_fields)`."""

    def make(
        settings: Mapping[str, Any] | None = None,
        *,
        seed: str | None = None,
        mode: Mode = "default",
        cwd: Path | None = None,
        **fields: Any,
    ) -> PermissionContext:
        layers = [(tree.ws / ".claude" / "settings.json", settings)] if settings else []
        seed_path = None
        if seed is not None:
            seed_path = tree.ws / ".tether" / "permissions.yaml"
            seed_path.parent.mkdir(exist_ok=True)
            seed_path.write_text(seed)
        rules = load_rules(layers, seed_yaml=seed_path)
        return PermissionContext(
            mode=mode,
            rules=rules,
            workspace=tree.ws,
            cwd=cwd or tree.ws,
            home=tree.home,
            **fields,
        )

    return make


def assert_denied_in_every_mode(
    command: str, make_ctx: ContextFactory, settings: Mapping[str, Any]
) -> None:
    """A Bash command a deny rule stops in default mode and in bypassPermissions alike (deny
    rules hold in every mode)."""
    for mode in ("default", "bypassPermissions"):
        decision = decide("Bash", {"command": command}, make_ctx(settings, mode=mode))
        assert decision.behavior == "deny", (mode, decision)


def bash(command: str, ctx: PermissionContext) -> Decision:
    """The decision on `command` given to the Bash tool."""
    return decide("Bash", {"command": command}, ctx)


def expected(rows: list[tuple[str, str, str | None, str]], tree: Tree) -> dict[str, Decision]:
    """A table of (command, behavior, rule, reason) rows, `tree`'s places filled in, as the
    decisions each command should get."""
    return {
        tree.fill(command): Decision(behavior, rule, tree.fill(reason))  # type: ignore[arg-type]
        for command, behavior, rule, reason in rows
    }


def git_in(repo: Path, *args: str) -> None:
    """Run `git ARGS` in `repo` (a real repository the engine's readers look at)."""
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)
