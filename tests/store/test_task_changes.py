"""Waiting for a board to change (`change_mark`, `wait_change`), against SQLite and a real
Redis server: an idle worker blocks on the board's outbox and claims a task made ready at
once, instead of looking again after a backoff."""

from __future__ import annotations

import threading

from tether.store.task_records import NewTask
from tether.store.task_store import TaskStore

from .task_stores import OpenStore

LONG_S = 600.0
"""A wait that ends only by a change (the test would hang, and fail by its timeout, if a
waiter waited it out)."""


def deliver(store: TaskStore) -> None:
    """As `ObservedTasks` does: the committed changes' events taken out of the outbox."""
    store.events_delivered([e.event_id for e in store.take_made() if e.event_id is not None])


def board_with_a_dependency(store: TaskStore) -> tuple[str, str]:
    first = store.create(NewTask(subject="first")).id
    second = store.create(NewTask(subject="second", depends_on=[first])).id
    deliver(store)
    return first, second


def test_a_waiter_claims_a_dependent_task_once_its_dependency_completes(
    open_store: OpenStore,
) -> None:
    waiter, other = open_store(), open_store()
    other.keep_events("worker-b", "w-b")
    first, second = board_with_a_dependency(other)
    claim = other.claim_next("worker-b")
    assert claim is not None
    assert claim.task.id == first
    deliver(other)

    mark = waiter.change_mark()
    assert waiter.claim_next("worker-a") is None  # nothing claimable: the waiter waits
    woke: list[bool] = []
    waiting = threading.Thread(target=lambda: woke.append(waiter.wait_change(mark, LONG_S)))
    waiting.start()
    other.complete(claim, "done")
    deliver(other)
    waiting.join()
    assert woke == [True]
    taken = waiter.claim_next("worker-a")
    assert taken is not None
    assert (taken.task.id, taken.task.attempts) == (second, 1)


def test_a_change_delivered_before_the_wait_still_wakes_it(open_store: OpenStore) -> None:
    waiter, other = open_store(), open_store()
    other.keep_events("worker-b", "w-b")
    mark = waiter.change_mark()
    other.create(NewTask(subject="added"))
    deliver(other)  # its event is out of the outbox before the waiter looks
    assert waiter.wait_change(mark, LONG_S)
    assert waiter.change_mark() != mark


def test_a_board_that_does_not_change_ends_the_wait_at_its_timeout(
    open_store: OpenStore,
) -> None:
    store = open_store()
    store.keep_events("worker-a", "w-a")
    store.create(NewTask(subject="added"))
    deliver(store)
    mark = store.change_mark()
    assert not store.wait_change(mark, 0.05)
    assert store.change_mark() == mark
