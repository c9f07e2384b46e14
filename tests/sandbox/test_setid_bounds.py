"""The search for set-id files under the writable roots is bounded: a root of any size does not
hold the first command for minutes. Where a bound cuts it, the notice says which, after how
many entries and where, and `tether sandbox check` shows it. Bounds are counted (entries,
levels), never timed, here."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from tether.sandbox.setid_files import Budget, SetidScan, find_setid

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the walk runs as root only")
pytestmark = needs_root


def wide_tree(root: Path, directories: int, files: int) -> list[Path]:
    """`directories` directories of `files` files each, and one setuid file in each."""
    made: list[Path] = []
    for d in range(directories):
        directory = root / f"d{d:03}"
        directory.mkdir(parents=True)
        for f in range(files):
            (directory / f"f{f}").touch()
        setuid = directory / "su"
        setuid.touch()
        setuid.chmod(0o4755)
        made.append(setuid)
    return made


def test_a_tree_within_the_bounds_is_walked_whole(tmp_path: Path) -> None:
    made = wide_tree(tmp_path, 5, 10)
    found = find_setid([tmp_path], Budget(entries=1000))
    assert (sorted(found.files), found.cut) == (sorted(made), None)


def test_a_tree_past_the_entry_bound_is_cut_with_a_precise_notice(tmp_path: Path) -> None:
    wide_tree(tmp_path, 20, 50)  # 20 + 20 * 51 entries
    found = find_setid([tmp_path], Budget(entries=300))
    assert len(found.files) < 20
    assert found.cut is not None
    assert "stopped at its bound of 300 entries after 300 entries, in " in found.cut
    stopped = found.cut.split(", in ", 1)[1].split(" ", 1)[0]
    assert Path(stopped).is_relative_to(tmp_path)
    assert "is not bound read-only" in found.cut


def test_directories_past_the_depth_bound_are_not_entered_and_named(tmp_path: Path) -> None:
    deep = tmp_path.joinpath(*(f"l{i}" for i in range(6)))
    deep.mkdir(parents=True)
    hidden = deep / "su"
    hidden.touch()
    hidden.chmod(0o2755)
    shallow = tmp_path / "l0" / "su"
    shallow.touch()
    shallow.chmod(0o4755)
    found = find_setid([tmp_path], Budget(depth=3))
    assert found.files == (shallow,)
    assert found.cut is not None
    first = tmp_path.joinpath("l0", "l1", "l2", "l3")
    assert f"did not enter 1 directories more than 3 levels deep (first: {first})" in found.cut
    whole = find_setid([tmp_path], Budget(depth=6))
    assert (sorted(whole.files), whole.cut) == (sorted([shallow, hidden]), None)


def test_the_sessions_scan_logs_a_cut_once_and_keeps_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    wide_tree(tmp_path, 10, 20)
    with caplog.at_level(logging.WARNING, logger="tether.sandbox.setid_files"):
        scan = SetidScan((tmp_path,), Budget(entries=50))
        first = scan((tmp_path,))
        assert scan((tmp_path,)) is first
    assert first.cut is not None
    assert [r.getMessage() for r in caplog.records] == [first.cut]
