"""The home table's classes, live: what common startup files source and the tool
environments they load (read-only where the home is writable, asked by the permission engine),
and where tools keep credentials (hidden from commands)."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import PermissionContext, decide, load_rules
from tether.tools.registry import ToolOutcome

from .conftest import (
    Layout,
    bash_runner,
    end_session,
    home_in_workspace,
    needs_bwrap,
    sandboxed_context,
)

SOURCED = {
    ".bash_aliases": "alias ll='ls -l'\n",
    ".cargo/env": 'export PATH="$HOME/.cargo/bin:$PATH"\n',
    ".bashrc.d/10-path.sh": "PATH=$PATH\n",
    ".profile.d/x.sh": "true\n",
    ".nvm/nvm.sh": "nvm() { :; }\n",
    ".sdkman/bin/sdkman-init.sh": "true\n",
    ".pyenv/shims/python": "#!/bin/sh\n",
    ".oh-my-zsh/custom/x.zsh": "true\n",
    ".psqlrc": "\\set QUIET 1\n",
    "go/bin/tool": "#!/bin/sh\n",
}

CREDENTIALS = {
    ".cache/huggingface/token": "hf_SECRET\n",
    ".huggingface/token": "hf_SECRET\n",
    ".kaggle/kaggle.json": '{"key": "SECRET"}\n',
    ".codex/auth.json": '{"token": "SECRET"}\n',
    ".gemini/oauth_creds.json": '{"token": "SECRET"}\n',
    ".ollama/id_ed25519": "SECRET KEY\n",
    ".fly/config.yml": "access_token: SECRET\n",
    ".pulumi/credentials.json": '{"accessToken": "SECRET"}\n',
    ".local/share/com.vercel.cli/auth.json": '{"token": "SECRET"}\n',
    ".supabase/access-token": "SECRET\n",
    ".dbt/profiles.yml": "password: SECRET\n",
    ".modal.toml": "token_secret = 'SECRET'\n",
    ".android/adbkey": "SECRET KEY\n",
}


def _plant(home: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)


@pytest.mark.parametrize("name", list(SOURCED))
def test_the_engine_asks_before_writing_what_startup_files_source(
    name: str, tmp_path: Path
) -> None:
    """The home as the workspace: a write there is asked, whatever acceptEdits allows."""
    home = tmp_path / "home"
    home.mkdir()
    ctx = PermissionContext(
        mode="acceptEdits",
        rules=load_rules([], seed_yaml=None),
        workspace=home,
        cwd=home,
        home=home,
    )
    decision = decide("Write", {"file_path": str(home / name), "content": "evil"}, ctx)
    assert decision.behavior == "ask", decision
    bash = decide("Bash", {"command": f"echo evil >> ~/{name}"}, ctx)
    assert bash.behavior == "ask", bash
    assert decide("Write", {"file_path": str(home / "notes.md"), "content": ""}, ctx).behavior == (
        "allow"
    )


@needs_bwrap
async def test_what_startup_files_source_is_read_only(boundary: Layout) -> None:
    layout = home_in_workspace(boundary)
    (layout.scratch / "tmp").mkdir(parents=True, exist_ok=True)
    _plant(layout.home, SOURCED)
    layout.hand_over()
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    script = "; ".join(
        f"(echo evil >> {layout.home / name}; rm -f {layout.home / name}) 2>/dev/null"
        for name in SOURCED
    )
    assert await run(command=f"{script}; echo done") == ToolOutcome("done", False)
    await end_session(ctx)
    assert {n: (layout.home / n).read_text() for n in SOURCED} == SOURCED


@needs_bwrap
async def test_credentials_in_the_home_are_hidden(boundary: Layout) -> None:
    home = boundary.home
    _plant(home, CREDENTIALS)
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary))
    paths = " ".join(str(home / name) for name in CREDENTIALS)
    outcome = await run(command=f"cat {paths} 2>/dev/null | grep -c SECRET; true")
    assert outcome == ToolOutcome("0", False)
