"""The sweep finds every git directory git itself would use: pointer files read as git reads
them (up to a NUL), a `.git` that is a symlink followed (into a skipped `node_modules` too),
and a directory git takes for a git directory by `HEAD` and `commondir` alone. Measured
before: each of these left a config whose `core.fsmonitor` or `core.pager` ran at the user's
`git status` or `git log` outside."""

from __future__ import annotations

from pathlib import Path

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context
from .test_git_sweep import _git, _repository

pytestmark = needs_bwrap

MAKE = """set -e
cfg() { git config --file "$1" "$2" "$3"; }
# A: commondir read up to its NUL.
mkdir -p a/vendor/.git/refs a/store/objects a/store/refs
echo 'ref: refs/heads/main' > a/vendor/.git/HEAD
printf '../../store\\0junk\\n' > a/vendor/.git/commondir
cfg a/store/config core.fsmonitor 'echo RAN-A'
# A2: a .git file read up to its NUL, into node_modules.
git init -q --bare node_modules/.g1
cfg node_modules/.g1/config core.pager 'echo RAN-A2'
mkdir -p a2 && printf 'gitdir: ../node_modules/.g1\\0junk\\n' > a2/.git
# C: a .git that is a symlink into node_modules.
git init -q --bare node_modules/.gitx
cfg node_modules/.gitx/config core.fsmonitor 'echo RAN-C'
mkdir -p c && ln -s ../node_modules/.gitx c/.git
# B: HEAD and commondir make src a git directory; the config is the common one's.
mkdir -p src .store/objects .store/refs
echo 'ref: refs/heads/main' > src/HEAD && echo ../.store > src/commondir
cfg .store/config core.pager 'echo RAN-B'
echo made
"""


async def test_git_directories_git_would_use_are_swept(layout: Layout) -> None:
    _repository(layout)
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(command=MAKE)
    assert isinstance(outcome.content, str)
    assert outcome.content.startswith("made"), outcome.content
    ws = layout.workspace
    for config in ("a/store", "node_modules/.g1", "node_modules/.gitx", ".store"):
        text = (ws / config / "config").read_text()
        assert "RAN" not in text, config
        assert "RAN" in (ws / config / "config.tether-disabled").read_text()
    # And git outside, where each was set up, runs none of it.
    assert "RAN" not in _git(ws / "src", "log", "-1")
    assert "RAN" not in _git(ws / "a2", "log", "-1")


def test_a_pointer_is_read_up_to_its_nul(tmp_path: Path) -> None:
    from tether.sandbox.protected import common_dirs, gitdir_pointer

    (tmp_path / "store").mkdir()
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_bytes(b"gitdir: ../store\0junk\n")
    assert gitdir_pointer(tmp_path / "wt" / ".git") == tmp_path / "store"
    (tmp_path / "gd").mkdir()
    (tmp_path / "gd" / "commondir").write_bytes(b"../store\0")
    assert common_dirs(tmp_path / "gd") == [tmp_path / "store"]
