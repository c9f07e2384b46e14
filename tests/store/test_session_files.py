"""Writing a session file and reading it back: the format on disk, and lines that went wrong."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.chains import message_chain_problem
from tether.protocol import (
    ConfigError,
    HarnessError,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from tether.store import (
    AssistantRecord,
    CompactionRecord,
    LoadedSession,
    SessionNotFound,
    SessionWriter,
    SpendRecord,
    UserRecord,
    load_session,
)

REPLY = Message(
    role="assistant",
    content=(
        ThinkingBlock(thinking="look first", signature="sig"),
        TextBlock(text="Listing."),
        ToolUseBlock(id="t1", name="Bash", input={"command": "ls", "timeout": None}),
        ToolUseBlock(id="t2", name="Read", input={}, input_error="not JSON", raw_input="{pa"),
    ),
)
RESULTS = (
    ToolResultBlock(tool_use_id="t1", content="a.py\n"),
    ToolResultBlock(tool_use_id="t2", content="bad arguments", is_error=True),
)
USAGE = Usage(
    input_tokens=10, output_tokens=5, cache_creation_input_tokens=3, cache_read_input_tokens=2
)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def user(text: str) -> UserRecord:
    return UserRecord((TextBlock(text=text),))


def test_every_kind_of_entry_reads_back_as_written(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path, model="m-1") as writer:
        writer.meta(model="m-1", version="0.1.0")
        writer.title("First try")
        writer.user([TextBlock(text="list the files")])
        writer.assistant(REPLY, USAGE)
        writer.user([*RESULTS, TextBlock(text="and now?")])
        writer.assistant(
            Message(role="assistant", content=(RedactedThinkingBlock(data="x"),)), None
        )
        writer.compacted([Message.user_text("Summary: files listed.")], kept=1)
        writer.spent(USAGE, 0.25)
        writer.title("Listing files")
        last = writer.last_uuid

    loaded = load_session(tmp_path / "s1.jsonl")
    assert loaded == LoadedSession(
        session_id="s1",
        path=tmp_path / "s1.jsonl",
        title="Listing files",
        forked_from=None,
        last_uuid=last,
        warnings=(),
        branch=loaded.branch,
    )
    assert [entry.line for entry in loaded.branch] == list(range(1, 10))
    assert tuple(loaded.records()) == (
        user("list the files"),
        AssistantRecord(REPLY, USAGE, model="m-1"),  # each reply names its model
        UserRecord((*RESULTS, TextBlock(text="and now?"))),
        AssistantRecord(
            Message(role="assistant", content=(RedactedThinkingBlock(data="x"),)),
            None,
            model="m-1",
        ),
        CompactionRecord((Message.user_text("Summary: files listed."),), 1),
        SpendRecord(USAGE, 0.25),
    )


def test_the_file_holds_one_compact_json_entry_a_line(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path / "ws", model="m-1") as writer:
        writer.user([TextBlock(text="héllo")])
        writer.assistant(REPLY, USAGE)

    raw = (tmp_path / "s1.jsonl").read_bytes()
    assert raw.endswith(b"}\n")
    assert "héllo".encode() in raw  # UTF-8, not \u escapes
    first, second = lines(tmp_path / "s1.jsonl")
    assert (
        raw.split(b"\n")[0] == json.dumps(first, ensure_ascii=False, separators=(",", ":")).encode()
    )
    header = ["type", "uuid", "parentUuid", "sessionId", "timestamp", "cwd"]
    assert list(first) == [*header, "message"]
    assert uuid.UUID(first["uuid"]).version == 4
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", first["timestamp"])
    assert second == {
        "type": "assistant",
        "uuid": second["uuid"],
        "parentUuid": first["uuid"],
        "sessionId": "s1",
        "timestamp": second["timestamp"],
        "cwd": str(tmp_path / "ws"),
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "look first", "signature": "sig"},
                {"type": "text", "text": "Listing."},
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Bash",
                    "input": {"command": "ls", "timeout": None},
                },
                {
                    "type": "tool_use",
                    "id": "t2",
                    "name": "Read",
                    "input": {},
                    "input_error": "not JSON",
                    "raw_input": "{pa",
                },
            ],
            "model": "m-1",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "cache_creation_input_tokens": 3,
                "cache_read_input_tokens": 2,
            },
        },
        "requestedModel": "m-1",  # its label is the model's own: trusted on resume
    }
    assert first["message"] == {"role": "user", "content": "héllo"}  # as Claude Code keeps it


def test_messages_chain_across_reopens_and_other_entries_hang_off_them(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.meta(model="m")
        writer.user([TextBlock(text="one")])
    for n in range(3):
        loaded = load_session(writer.path)
        with SessionWriter.reopen(writer.path, cwd=tmp_path, last_uuid=loaded.last_uuid) as again:
            again.user([TextBlock(text=f"resumed {n}")])
            again.append("bookmark", note="a kind this version does not know")

    entries = lines(writer.path)
    assert message_chain_problem(entries) is None
    assert len({e["uuid"] for e in entries}) == len(entries) == 8
    loaded = load_session(writer.path)
    assert tuple(loaded.records()) == (
        user("one"),
        user("resumed 0"),
        user("resumed 1"),
        user("resumed 2"),
    )
    # The newest message is the parent of what comes next, not the bookmark after it.
    assert (loaded.last_uuid, loaded.warnings) == (entries[-2]["uuid"], ())


def test_a_torn_last_line_is_skipped_and_the_next_entry_starts_a_new_line(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
        writer.user([TextBlock(text="two")])
    with writer.path.open("ab") as file:  # a crash in the middle of the third write
        file.write(b'{"type":"user","uuid":"0c5e","parentUuid":"')
    before = writer.path.read_bytes()

    loaded = load_session(writer.path)
    torn = f"session file {writer.path}: line 3 could not be read (torn or invalid); skipped"
    assert (tuple(loaded.records()), loaded.warnings) == ((user("one"), user("two")), (torn,))

    with SessionWriter.reopen(writer.path, cwd=tmp_path, last_uuid=loaded.last_uuid) as again:
        assert writer.path.read_bytes() == before + b"\n"
        again.user([TextBlock(text="three")])

    assert writer.path.read_bytes().startswith(before + b"\n")
    reloaded = load_session(writer.path)
    assert (tuple(reloaded.records()), reloaded.warnings) == (
        (user("one"), user("two"), user("three")),
        (torn,),
    )
    newest = writer.path.read_bytes().splitlines()[-1]
    assert json.loads(newest)["parentUuid"] == loaded.last_uuid


def test_bad_lines_in_the_middle_are_skipped_with_their_line_numbers(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
    entry = lines(writer.path)[0]

    def linked(number: int, **fields: Any) -> bytes:
        parent = entry["uuid"] if number == 8 else f"u{number - 1}"
        return json.dumps({**entry, "uuid": f"u{number}", "parentUuid": parent, **fields}).encode()

    with writer.path.open("ab") as file:
        for line in (
            b"not json at all",
            b"",
            b"   ",
            b"[1, 2]",
            b'{"type": "user"}',
            json.dumps({**entry, "uuid": "u-other", "parentUuid": 7}).encode(),
            linked(8, message={"role": "user", "content": [{"type": 7}]}),
            linked(9, type="compaction", summary=[], kept=0),
            linked(10, type="title", title=None),
            linked(11, type="user", message={"role": "user", "content": 42}),
            b"\xff\xfe{}",
            json.dumps(entry).encode(),  # the first entry again
        ):
            file.write(line + b"\n")
    with SessionWriter.reopen(writer.path, cwd=tmp_path, last_uuid="u11") as again:
        again.user([TextBlock(text="two")])

    loaded = load_session(writer.path)
    here = f"session file {writer.path}"
    assert loaded.warnings == (
        f"{here}: lines 2, 5, 6, 7, 12 could not be read (torn or invalid); skipped",
        f"{here}: line 13 repeated an earlier entry; skipped",
    )
    problems: list[str] = []
    assert tuple(loaded.records(problems)) == (user("one"), user("two"))
    # pydantic's own wording of a bad block is its business: only its place is checked
    assert [re.sub(r"(: content(\.0)?: ).+$", r"\1...", p) for p in problems] == [
        "line 8 skipped: user: content.0: ...",
        "line 9 skipped: compaction without a summary list and a positive kept",
        "line 11 skipped: user: content: ...",
    ]
    assert loaded.title is None


def test_lone_surrogates_are_kept_as_escapes_in_a_valid_utf8_file(tmp_path: Path) -> None:
    undecodable = b"caf\xe9 \xff".decode("utf-8", "surrogateescape")
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([ToolResultBlock(tool_use_id="t1", content=undecodable)])
        writer.title(undecodable)

    raw = writer.path.read_bytes()
    raw.decode("utf-8")  # strict: the file stays readable by any JSON tool
    assert b"\\udce9" in raw
    loaded = load_session(writer.path)
    assert tuple(loaded.records()) == (
        UserRecord((ToolResultBlock(tool_use_id="t1", content=undecodable),)),
    )
    assert loaded.title == undecodable


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_raises_and_the_entry_does_not_count(tmp_path: Path) -> None:
    writer = SessionWriter.reopen(Path("/dev/full"), cwd=tmp_path, last_uuid="u-before")
    with pytest.raises(HarnessError) as raised:
        writer.user([TextBlock(text="lost")])
    assert str(raised.value) == "could not save the session to /dev/full: No space left on device"
    assert writer.last_uuid == "u-before"
    writer.close()


PARTIAL_WRITE = """
import resource, signal, sys
from pathlib import Path
from tether.protocol import HarnessError, TextBlock
from tether.store import SessionWriter

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
directory = Path(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
writer = SessionWriter.create(directory, "s1", cwd=directory)
writer.user([TextBlock(text="fits")])
sys.dont_write_bytecode = True  # no bytecode cut short by the limit in the shared cache
resource.setrlimit(resource.RLIMIT_FSIZE, (writer.path.stat().st_size + 100, hard))
try:
    writer.user([TextBlock(text="x" * 1000)])
except HarnessError as e:
    print(e)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
writer.user([TextBlock(text="after")])
writer.close()
"""


def test_a_half_written_entry_is_taken_back_and_the_file_stays_whole(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-c", PARTIAL_WRITE, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    path = tmp_path / "s1.jsonl"
    assert run.stdout.startswith(  # the limit named, so the user knows what to raise
        f"could not save the session to {path}: File too large (the file size limit of this "
        "process, `ulimit -f`, is "
    )
    loaded = load_session(path)
    assert tuple(loaded.records()) == (user("fits"), user("after"))
    assert loaded.warnings == ()
    fits, after = path.read_bytes().splitlines()
    assert json.loads(after)["parentUuid"] == json.loads(fits)["uuid"]


def test_a_writer_refuses_to_start_over_an_existing_file(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
    before = writer.path.read_bytes()
    with pytest.raises(HarnessError, match="session id s1 is already in use"):
        SessionWriter.create(tmp_path, "s1", cwd=tmp_path)
    assert writer.path.read_bytes() == before


@pytest.mark.parametrize("session_id", ["", "../x", "a/b", ".hidden", "a b"])
def test_a_session_id_must_be_a_plain_file_name(tmp_path: Path, session_id: str) -> None:
    with pytest.raises(ConfigError, match="invalid session id"):
        SessionWriter.create(tmp_path, session_id, cwd=tmp_path)


def test_a_closed_writer_writes_nothing_more(tmp_path: Path) -> None:
    writer = SessionWriter.create(tmp_path / "new" / "dir", "s1", cwd=tmp_path)
    writer.close()
    writer.close()
    with pytest.raises(ValueError, match="is closed"):
        writer.user([TextBlock(text="late")])
    assert writer.path.read_bytes() == b""
    assert writer.path.stat().st_mode & 0o777 == 0o600


def test_the_writer_owns_the_header_fields(tmp_path: Path) -> None:
    with (
        SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer,
        pytest.raises(ValueError, match=r"\['uuid'\] are set by the writer"),
    ):
        writer.append("note", uuid="mine")


def test_loading_a_missing_or_unreadable_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(SessionNotFound, match=f"no session file at {tmp_path / 'nope.jsonl'}"):
        load_session(tmp_path / "nope.jsonl")
    with pytest.raises(ConfigError, match=f"cannot read session file {tmp_path}: Is a directory"):
        load_session(tmp_path)


def test_an_entry_whose_type_was_garbled_is_said_not_silently_skipped(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
        writer.append("bookmark", note="a kind this version does not know: nothing to say")
        writer.user([TextBlock(text="two")])
    raw = writer.path.read_bytes().replace(b'"type":"user"', b'"type":"usxr"', 1)
    writer.path.write_bytes(raw)
    problems: list[str] = []
    assert tuple(load_session(writer.path).records(problems)) == (user("two"),)
    assert problems == ["line 1 skipped: an entry of unknown type 'usxr' with a message"]


def test_images_the_api_would_refuse_are_left_out_and_said(tmp_path: Path) -> None:
    png = "iVBORw0KGgo="  # a PNG's signature, base64
    good = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}

    def image(media_type: str, data: str) -> dict[str, Any]:
        return {
            "type": "image",
            "source": {"type": "base64", "media_type": media_type, "data": data},
        }

    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
        writer.assistant(REPLY, USAGE)
        writer.user(list(RESULTS))
    entries = lines(writer.path)
    entries[0]["message"]["content"] = [
        {"type": "text", "text": "see"},
        image("image/png", "!!!notbase64"),
        image("image/bmp", png),
        image("image/jpeg", png),
        {"type": "image", "source": {"type": "url", "url": "file:///etc/passwd"}},
        good,
    ]
    entries[1]["message"]["content"].append(good)
    entries[2]["message"]["content"][0]["content"] = [
        {"type": "text", "text": "a.py\n"},
        image("image/png", "aGVsbG8="),
        good,
    ]
    writer.path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))

    problems: list[str] = []
    records = tuple(load_session(writer.path).records(problems))
    assert problems == [
        "line 1: an image whose data is not valid base64 left out",
        "line 1: an image of a media type the API does not take left out",
        "line 1: an image whose data is not image/jpeg left out",
        "line 1: an image whose URL is not an http(s) address left out",
        "line 2: an image in an assistant message left out",
        "line 3: an image whose data is not image/png left out",
    ]
    image_block = ImageBlock.model_validate(good)
    assert records == (
        UserRecord((TextBlock(text="see"), image_block)),
        AssistantRecord(REPLY, USAGE),
        UserRecord((RESULTS[0].model_copy(update={"images": (image_block,)}), RESULTS[1])),
    )


def test_a_field_that_only_describes_an_entry_does_not_lose_its_message(tmp_path: Path) -> None:
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
        writer.assistant(REPLY, USAGE)
        writer.user(list(RESULTS))
        writer.assistant(Message(role="assistant", content=(TextBlock(text="done"),)), USAGE)
    entries = lines(writer.path)
    for entry, timestamp in zip(entries, (None, 5, "yesterday", "9999-99-99"), strict=True):
        entry["timestamp"] = timestamp
    entries[0]["cwd"] = 7
    del entries[2]["cwd"]
    entries[3]["message"]["usage"] = "garbage"
    writer.path.write_text("".join(json.dumps(entry) + "\n" for entry in entries))

    loaded = load_session(writer.path)
    problems: list[str] = []
    assert loaded.warnings == ()
    assert tuple(loaded.records(problems)) == (
        user("one"),
        AssistantRecord(REPLY, USAGE),
        UserRecord(RESULTS),
        AssistantRecord(Message(role="assistant", content=(TextBlock(text="done"),)), None),
    )
    assert problems == []
    assert loaded.last_uuid == entries[3]["uuid"]


def test_a_title_line_with_a_uuid_and_no_parent_is_read_in_silence(tmp_path: Path) -> None:
    # As the Agent SDK's fork_session writes it (its rename_session's line has no uuid).
    # Before, the resume warned that this valid line was torn.
    with SessionWriter.create(tmp_path, "s1", cwd=tmp_path) as writer:
        writer.user([TextBlock(text="one")])
    title = {"type": "custom-title", "sessionId": "s1", "customTitle": "T (fork)"}
    with writer.path.open("a") as file:
        file.write(json.dumps({**title, "uuid": "4720", "timestamp": "2026-12-05T02:42:16Z"}))
        file.write("\n")
    loaded = load_session(writer.path)
    assert loaded.warnings == ()
    assert tuple(loaded.records([])) == (user("one"),)
