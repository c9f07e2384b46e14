"""What the session index holds per entry: a resume of a file of many small messages keeps
one small object per line, whatever the file holds besides."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from tether.protocol import Message, TextBlock, Usage
from tether.store import SessionWriter, load_session

ROUNDS = 10_000


def test_the_index_of_many_small_messages_costs_little_per_entry(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "small", cwd=tmp_path) as writer:
        for n in range(ROUNDS):
            writer.user([TextBlock(text=f"Question {n}: what is {n} squared?")])
            answer = Message(role="assistant", content=(TextBlock(text=f"It is {n * n}."),))
            writer.assistant(answer, Usage(output_tokens=9))
    gc.collect()
    tracemalloc.start()
    try:
        loaded = load_session(writer.path)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    entries = len(loaded.branch)
    assert entries == 2 * ROUNDS
    # A uuid string (85 bytes) and an object of five slots with one packed int: about 205
    # bytes an entry held, 400 at the peak (the maps from uuid to place). Offsets, lengths,
    # line numbers and flags as separate fields, and a copy of the branch, cost 285 and 475.
    assert held / entries < 230
    assert peak / entries < 440
