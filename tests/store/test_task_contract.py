"""The task store contract, run against SQLite and against a real Redis server: the graph's
rules (dependencies, cycles, blocking, retry), the claim order, leases and fencing."""

from __future__ import annotations

import pytest

from tether.store.task_graph import TaskChanges
from tether.store.task_records import LeaseLost, NewTask, TaskNotFound, TaskStoreError
from tether.store.task_store import TaskStore

from .task_stores import OpenStore

EXPIRED = -1.0
"""A lease already over when granted: expiry without waiting for a clock."""


def add(store: TaskStore, subject: str, *deps: str, priority: str = "medium") -> str:
    new = NewTask(subject=subject, depends_on=list(deps), priority=priority)  # type: ignore[arg-type]
    return store.create(new).id


def statuses(store: TaskStore) -> dict[str, str]:
    return {t.id: t.status for t in store.list()}


def test_created_tasks_read_back_whole(store: TaskStore) -> None:
    first = store.create(NewTask(subject="parse", description="the parser", metadata={"k": 1}))
    second = store.create(NewTask(subject="check", depends_on=[first.id], priority="high"))
    assert (first.id, second.id) == ("1", "2")
    got = store.get("1")
    assert got.model_dump(exclude={"created_at", "updated_at"}) == {
        "id": "1",
        "subject": "parse",
        "description": "the parser",
        "active_form": None,
        "status": "pending",
        "priority": "medium",
        "owner": None,
        "depends_on": [],
        "blocks": ["2"],
        "blocked_reason": None,
        "result": None,
        "error": None,
        "attempts": 0,
        "cost_usd": 0.0,
        "metadata": {"k": 1},
        "started_at": None,
        "finished_at": None,
        "lease_expires_at": None,
        "fence": 0,
    }
    assert [(t.id, t.depends_on, t.blocks) for t in store.list()] == [
        ("1", [], ["2"]),
        ("2", ["1"], []),
    ]


def test_unknown_dependency_and_unknown_task_are_refused(store: TaskStore) -> None:
    with pytest.raises(TaskStoreError, match=r"unknown dependency #9: no such task in team"):
        add(store, "orphan", "9")
    assert store.list() == []
    with pytest.raises(TaskNotFound, match=r"no task #4 in team"):
        store.get("4")
    with pytest.raises(TaskNotFound):
        store.retry("nope")


def test_a_cycle_is_refused_with_its_path(store: TaskStore) -> None:
    a = add(store, "a")
    b = add(store, "b", a)
    c = add(store, "c", b)
    with pytest.raises(
        TaskStoreError, match=r"#1 depending on #3 would make a cycle: #1 -> #3 -> #2 -> #1"
    ):
        store.update(a, TaskChanges(add_depends_on=[c]))
    with pytest.raises(TaskStoreError, match="would make a cycle"):
        store.update(c, TaskChanges(add_blocks=[a]))
    with pytest.raises(TaskStoreError, match="cannot depend on itself"):
        store.update(a, TaskChanges(add_depends_on=[a]))
    assert store.get(a).depends_on == []


def test_claim_order_is_priority_then_age_and_waits_for_dependencies(store: TaskStore) -> None:
    low = add(store, "low", priority="low")
    old = add(store, "old")
    high_later = add(store, "high but waits", old, priority="high")
    young = add(store, "young")
    order = []
    while (claim := store.claim_next("w")) is not None:
        order.append(claim.task_id)
        store.complete(claim, "ok")
    # high_later waits for `old`; once old is done it goes before the rest.
    assert order == [old, high_later, young, low]


def test_an_assigned_task_is_claimed_only_by_its_owner(store: TaskStore) -> None:
    mine = store.create(NewTask(subject="for ann", owner="ann")).id
    assert store.claim_next("bob") is None
    claim = store.claim_next("ann")
    assert claim is not None
    assert claim.task_id == mine
    with pytest.raises(TaskStoreError, match="already being worked on by ann"):
        store.claim(mine, "bob")


def test_completion_records_result_and_cost_and_frees_dependents(store: TaskStore) -> None:
    a = add(store, "a")
    b = add(store, "b", a)
    with pytest.raises(TaskStoreError, match=r"task #2 waits for #1 to complete"):
        store.claim(b, "w")
    claim = store.claim(a, "w")
    done = store.complete(claim, "built", cost_usd=0.25)
    assert (done.status, done.result, done.cost_usd, done.owner) == (
        "completed",
        "built",
        0.25,
        "w",
    )
    with pytest.raises(LeaseLost):
        store.complete(claim, "again")
    nxt = store.claim_next("w")
    assert nxt is not None
    assert nxt.task_id == b


def test_a_failure_blocks_dependents_and_a_retry_unblocks_them(store: TaskStore) -> None:
    a = add(store, "compile")
    b = add(store, "test", a)
    c = add(store, "ship", b)
    other = add(store, "docs")
    store.fail(store.claim(a, "w"), "syntax error", cost_usd=0.1)
    assert statuses(store) == {a: "failed", b: "blocked", c: "blocked", other: "pending"}
    reason = "#1 (compile) failed: syntax error"
    assert store.get(b).blocked_reason == reason
    assert store.get(c).blocked_reason == reason
    with pytest.raises(TaskStoreError, match=r"task #3 is blocked: #1 \(compile\) failed"):
        store.retry(c)
    with pytest.raises(TaskStoreError, match="only a failed task is retried"):
        store.retry(other)
    # A task added on a failed one starts blocked.
    d = add(store, "late", a)
    assert store.get(d).status == "blocked"
    retried = store.retry(a)
    assert (retried.status, retried.attempts, retried.error) == ("pending", 0, None)
    assert statuses(store) == {
        a: "pending",
        b: "pending",
        c: "pending",
        other: "pending",
        d: "pending",
    }
    assert store.get(b).blocked_reason is None
    claimed = store.claim_next("w")
    assert claimed is not None
    assert claimed.task_id == a


def test_a_retry_brings_every_transitive_dependents_reason_up_to_date(store: TaskStore) -> None:
    a = add(store, "compile")
    x = add(store, "lint")
    b = add(store, "test", a, x)
    c = add(store, "ship", b)
    d = add(store, "announce", c)
    store.fail(store.claim(a, "w"), "syntax error")
    store.fail(store.claim(x, "w"), "style")
    first = "#1 (compile) failed: syntax error"
    assert [store.get(t).blocked_reason for t in (b, c, d)] == [first] * 3
    # B stays blocked (by X now): its new reason reaches C and D too, not A's old one.
    store.retry(a)
    second = "#2 (lint) failed: style"
    assert [(store.get(t).status, store.get(t).blocked_reason) for t in (b, c, d)] == [
        ("blocked", second)
    ] * 3
    store.retry(x)
    assert [(store.get(t).status, store.get(t).blocked_reason) for t in (b, c, d)] == [
        ("pending", None)
    ] * 3


def test_an_expired_lease_returns_the_task_and_cannot_complete(open_store: OpenStore) -> None:
    store, other = open_store(), open_store()
    a = add(store, "a")
    stale = store.claim_next("dead", lease_s=EXPIRED)
    assert stale is not None
    assert stale.task_id == a
    fresh = other.claim_next("alive")
    assert fresh is not None
    assert fresh.task_id == a
    assert fresh.fence > stale.fence
    assert fresh.task.attempts == 2
    with pytest.raises(LeaseLost, match=r"dead no longer holds task #1 .*held by alive"):
        store.complete(stale, "late")
    with pytest.raises(LeaseLost):
        store.heartbeat(stale)
    other.complete(fresh, "on time")
    task = store.get(a)
    assert (task.status, task.result, task.attempts) == ("completed", "on time", 2)


def test_a_lapsed_lease_no_one_claimed_since_still_records_its_work(
    open_store: OpenStore,
) -> None:
    """The fence, not the clock: a worker cut off from the store past its lease (an outage, a
    pause) records its finished work once when no other claim came since."""
    store, other = open_store(), open_store()
    a, b = add(store, "a"), add(store, "b")
    late = store.claim(a, "cut-off", lease_s=EXPIRED)
    renewed = store.heartbeat(late, lease_s=600)
    assert (store.get(a).status, store.get(a).owner) == ("in_progress", "cut-off")
    done = store.complete(renewed, "finished in the outage", cost_usd=0.5)
    assert (done.status, done.result, done.attempts, done.cost_usd) == (
        "completed",
        "finished in the outage",
        1,
        0.5,
    )
    # Reaped back to the board (another worker looked for work), yet claimed by no one.
    reaped = store.claim(b, "cut-off", lease_s=EXPIRED)
    assert [t.id for t in other.reap_expired()] == [b]
    assert store.get(b).status == "pending"
    kept = store.complete(reaped, "finished too", cost_usd=0.25)
    assert (kept.status, kept.result, kept.owner, kept.attempts) == (
        "completed",
        "finished too",
        "cut-off",
        1,
    )
    with pytest.raises(LeaseLost):
        store.complete(reaped, "twice")


def test_a_retry_ends_every_earlier_claim(store: TaskStore) -> None:
    a = add(store, "a")
    claim = store.claim(a, "w", lease_s=EXPIRED)
    assert [t.status for t in store.reap_expired(max_attempts=1)] == ["failed"]
    store.retry(a)
    with pytest.raises(LeaseLost, match=r"w no longer holds task #1 \(.*it is now pending\)"):
        store.complete(claim, "stale")


def test_after_max_attempts_an_expiring_task_fails_and_blocks(store: TaskStore) -> None:
    a = add(store, "flaky")
    b = add(store, "after", a)
    for _ in range(2):
        assert store.claim_next("w", lease_s=EXPIRED, max_attempts=2) is not None
    assert store.claim_next("w", max_attempts=2) is None
    failed = store.get(a)
    assert failed.status == "failed"
    assert failed.error is not None
    assert "lease ran out 2 times (last held by w)" in failed.error
    assert store.get(b).status == "blocked"


def test_heartbeat_extends_and_release_gives_back_without_counting(store: TaskStore) -> None:
    a = add(store, "a")
    claim = store.claim_next("w", lease_s=30)
    assert claim is not None
    longer = store.heartbeat(claim, lease_s=600)
    assert longer.lease_expires_at > claim.lease_expires_at
    assert store.get(a).lease_expires_at == pytest.approx(longer.lease_expires_at)
    back = store.release(longer, cost_usd=0.5)
    assert (back.status, back.owner, back.attempts, back.cost_usd) == ("pending", None, 0, 0.5)
    with pytest.raises(LeaseLost):
        store.complete(longer, "x")
    assert store.reap_expired() == []


def test_remove_refuses_dependencies_and_work_in_progress(store: TaskStore) -> None:
    a = add(store, "a")
    b = add(store, "b", a)
    with pytest.raises(TaskStoreError, match=r"task #1 is a dependency of #2: remove those first"):
        store.remove(a)
    assert store.remove(b).id == b
    claim = store.claim(a, "w")
    with pytest.raises(TaskStoreError) as caught:
        store.remove(a)
    assert str(caught.value) == (
        "task #1 is being worked on by w: remove it once that run ends (stop the worker with "
        "Ctrl+C, and it goes back to the board), or let it finish"
    )
    store.release(claim)
    store.remove(a)
    assert store.list() == []
    assert add(store, "next") == "3"  # ids are never given out twice


def test_update_changes_fields_and_merges_metadata(store: TaskStore) -> None:
    a = store.create(NewTask(subject="a", metadata={"keep": 1, "drop": 2})).id
    b = add(store, "b")
    changed = store.update(
        a,
        TaskChanges(
            subject="A",
            description="d",
            active_form="Doing A",
            priority="high",
            owner="ann",
            metadata={"drop": None, "new": "x"},
            add_blocks=[b],
        ),
    )
    assert (changed.subject, changed.description, changed.active_form) == ("A", "d", "Doing A")
    assert (changed.priority, changed.owner, changed.metadata) == (
        "high",
        "ann",
        {"keep": 1, "new": "x"},
    )
    assert store.get(b).depends_on == [a]
    assert store.get(a).blocks == [b]
    assert store.update(a, TaskChanges(owner="")).owner is None


def test_teams_are_separate_boards(open_store: OpenStore, team: str) -> None:
    ours, theirs = open_store(), open_store(team + "-other")
    add(ours, "ours")
    assert theirs.list() == []
    assert theirs.claim_next("w") is None
    assert add(theirs, "theirs") == "1"
