"""Resuming a long session holds a bounded amount of it: the index of its entries, the one
entry being read, the newest part of the conversation a request could send in full, and the
head and tail of each long string before it. Measured by what stays allocated (tracemalloc),
not by time."""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path

from tether.core.folded import CHUNK_BYTES
from tether.core.history import LIGHT_CAP, History
from tether.core.resume import restore
from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from tether.store import LoadedSession, SessionWriter, load_session

RESULT_CHARS = 200_000
ROUNDS = 30  # a 6 MB file
TAIL = 500_000


def _long_session(directory: Path) -> Path:
    with SessionWriter.create(directory, "long", cwd=directory, model="m") as writer:
        writer.user([TextBlock(text="Read every file.")])
        for turn in range(ROUNDS):
            call = ToolUseBlock(
                id=f"toolu_{turn:04d}", name="Read", input={"file_path": f"f{turn}"}
            )
            writer.assistant(Message(role="assistant", content=(call,)), Usage(output_tokens=5))
            body = f"{turn:04d}" + "x" * RESULT_CHARS
            writer.user([ToolResultBlock(tool_use_id=call.id, content=body)])
        writer.assistant(Message(role="assistant", content=(TextBlock(text="Done."),)), None)
    return writer.path


def _held_chars(messages: tuple[Message, ...]) -> int:
    return sum(len(m.model_dump_json()) for m in messages)


def _peak_of_resume(path: Path, full_bytes: int) -> tuple[int, int]:
    """Peak bytes allocated while resuming, and the characters the history then holds."""
    gc.collect()
    tracemalloc.start()
    try:
        restored = restore(load_session(path), full_bytes=full_bytes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, _held_chars(restored.history.messages)


def test_a_resume_holds_the_newest_part_in_full_and_the_rest_as_head_and_tail(
    tmp_path: Path,
) -> None:
    path = _long_session(tmp_path)
    size = path.stat().st_size
    peak, held = _peak_of_resume(path, TAIL)
    line = RESULT_CHARS + 1000
    # The tail (and the entry that crosses into it), a few copies of the entry being read,
    # and the head and tail of every older one: nothing in proportion to the file.
    assert held <= TAIL + line + 2 * ROUNDS * (2 * LIGHT_CAP + 500)
    assert peak <= TAIL + 3 * line + 200_000
    assert peak < size / 4
    # Without a bound (as before), the whole conversation is held: the measure measures.
    whole_peak, whole_held = _peak_of_resume(path, 0)
    assert whole_held > size * 0.9
    assert whole_peak > size


def test_the_newest_part_is_kept_exactly_as_written(tmp_path: Path) -> None:
    path = _long_session(tmp_path)
    history = restore(load_session(path), full_bytes=TAIL).history
    whole = restore(load_session(path)).history.messages
    assert len(history) == len(whole)
    held = history.messages
    newest = 2 * (TAIL // (RESULT_CHARS + 300)) - 1  # messages wholly inside the tail
    assert held[-newest:] == whole[-newest:]
    # The older part is folded: read back, it is the head and tail of what was written.
    folded = list(history.folded.messages())
    assert len(folded) + len(held) == len(whole)
    assert folded[0] == whole[0]  # short: nothing to cut
    assert _held_chars(tuple(folded[1:4])) < 3 * (2 * LIGHT_CAP + 500)


SMALL_ROUNDS = 2500  # about 1.8 MB of one-line prompts and answers
SMALL_TAIL = 100_000


def _small_session(directory: Path) -> Path:
    with SessionWriter.create(directory, "small", cwd=directory, model="m") as writer:
        for turn in range(SMALL_ROUNDS):
            writer.user([TextBlock(text=f"Question {turn}: what is {turn} squared?")])
            answer = TextBlock(text=f"{turn} squared is {turn * turn}.")
            writer.assistant(Message(role="assistant", content=(answer,)), Usage(output_tokens=9))
    return writer.path


def _restore_allocations(loaded: LoadedSession, full_bytes: int) -> tuple[int, int, History]:
    """Peak bytes allocated while restoring an indexed file, and what stays allocated."""
    gc.collect()
    tracemalloc.start()
    try:
        history = restore(loaded, full_bytes=full_bytes).history
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, held, history


def test_a_resume_of_many_small_messages_holds_the_window_not_the_file(tmp_path: Path) -> None:
    path = _small_session(tmp_path)
    size = path.stat().st_size
    loaded = load_session(path)
    peak, held, history = _restore_allocations(loaded, SMALL_TAIL)
    # Objects only for the newest part a request could send; the rest folded, a few bytes a
    # message compressed: what stays is a fraction of the file, not a multiple of it.
    assert len(history) == 2 * SMALL_ROUNDS
    assert _held_chars(history.messages) <= SMALL_TAIL
    assert history.folded.held_bytes < CHUNK_BYTES + size / 20  # the chunk being filled
    # Each held message takes about four times its bytes of the file as objects; folding
    # copies the chunk it compresses.
    window = 5 * SMALL_TAIL
    assert held < window + CHUNK_BYTES + size / 20
    assert peak < window + 3 * CHUNK_BYTES + size / 20
    assert peak < size
    # Every message an object (as before): more than twice what the folded history holds
    # (the protocol's records are slotted: together some two thirds of the file's size).
    whole_peak, whole_held, whole = _restore_allocations(loaded, 0)
    assert whole_held > 2 * held
    assert whole_peak > peak
    # What the next request sends begins with a note for the folded part, then is the same.
    view = history.view()
    assert "oldest messages of this conversation are left out" in view[0].text()
    assert view[1:] == whole.view()[-(len(view) - 1) :]
