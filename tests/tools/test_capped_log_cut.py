"""A background command's log cut short by another program while the command runs (`: > log`):
what comes next is read back as written, not after a hole of NUL bytes the size of what was
cut (the writer's offset was past the new end)."""

from __future__ import annotations

import os
from pathlib import Path

from tether.tools.capped_log import CappedLog


def test_output_after_the_log_was_cut_has_no_hole(tmp_path: Path) -> None:
    log = CappedLog(tmp_path, "bg-")
    log.append(b"x" * 10_000)
    os.truncate(log.path, 0)  # another program empties it
    log.append(b"after\n")
    on_disk = log.path.read_bytes()
    assert b"\0" not in on_disk
    assert on_disk == b"after\n"
    assert log.read(10_000, 100) == b"after\n"  # where a reader that had the rest goes on
    assert log.dropped == 10_000
    log.close()
