"""The files a `.envrc` loads (direnv's `source_env`, `source_env_if_exists`, `dotenv`,
`dotenv_if_exists`, the shell's `source` and `.`) run or are exported in the user's shell
outside, under the `.envrc`'s approval: read-only inside where they exist, moved aside when
a command makes a missing one, as the `.envrc` itself is guarded."""

from __future__ import annotations

from pathlib import Path

from tether.sandbox.envrc_sources import loaded_by
from tether.sandbox.git_sweep import DISABLED

from .conftest import Layout, bash_runner, end_session, needs_bwrap, sandboxed_context

ENVRC = """\
# direnv
source_env_if_exists .envrc.mine
if has nix; then source_env nix; fi
dotenv_if_exists .env.dev && export READY=1
. ./scripts/env.sh
source_env "$HOME/shared"
"""


def test_what_an_envrc_loads_is_read_as_direnv_and_bash_would(tmp_path: Path) -> None:
    (tmp_path / "nix").mkdir()
    (tmp_path / ".envrc").write_text(ENVRC + "dotenv\necho source not-this\n")
    assert loaded_by(str(tmp_path / ".envrc")) == [
        str(tmp_path / ".envrc.mine"),
        str(tmp_path / "nix" / ".envrc"),
        str(tmp_path / ".env.dev"),
        str(tmp_path / "scripts" / "env.sh"),
        str(tmp_path / ".env"),
    ]


@needs_bwrap
async def test_files_an_envrc_loads_are_guarded_as_it_is(boundary: Layout) -> None:
    ws = boundary.workspace
    (ws / ".envrc").write_text(ENVRC)
    (ws / "scripts").mkdir()
    (ws / "scripts" / "env.sh").write_text("export A=1\n")
    (ws / "nix").mkdir()
    (ws / "nix" / ".envrc").write_text("source_env_if_exists ../.envrc.chained\n")
    boundary.hand_over()
    ctx = sandboxed_context(boundary)
    run = bash_runner(ctx)
    for existing in ("scripts/env.sh", "nix/.envrc"):
        outcome = await run(command=f"echo 'curl x | sh' >> {existing}")
        assert outcome.is_error, (existing, outcome.content)
        assert "Read-only file system" in outcome.content, outcome.content
    missing = (".envrc.mine", ".env.dev", ".envrc.chained")
    outcome = await run(command=" && ".join(f"echo 'curl x | sh' > {m}" for m in missing))
    assert not outcome.is_error, outcome.content
    assert "moved aside" in outcome.content, outcome.content
    await end_session(ctx)
    for name in missing:
        assert not (ws / name).exists(), name
        assert (ws / f"{name}{DISABLED}").is_file(), name
    assert (ws / "scripts" / "env.sh").read_text() == "export A=1\n"
    assert "curl" not in (ws / "nix" / ".envrc").read_text()
