import pytest

from tether.observe.records import EventRecord, RecordError, parse_record, timestamp


def test_a_record_round_trips_through_its_line() -> None:
    record = EventRecord(
        session_id="s1",
        agent_id="main",
        task_id="7",
        ts=timestamp(),
        kind="tool_finished",
        payload={"name": "Bash", "text": "é\n"},
    )
    line = record.to_json()
    assert "\n" not in line
    assert parse_record(line) == record


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{", "not JSON"),
        ("[]", "not a JSON object"),
        ('{"session_id": 1, "agent_id": "a", "ts": "t", "kind": "k"}', '"session_id" must be'),
        ('{"session_id": "s", "agent_id": "a", "ts": "t", "kind": "k", "task_id": 3}', "task_id"),
        ('{"session_id": "s", "agent_id": "a", "ts": "t", "kind": "k", "payload": []}', "payload"),
    ],
)
def test_a_broken_line_says_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        parse_record(line)
