"""Plain records (`Slotted`): equal, hashed and shown by their fields, as dataclasses were."""

from __future__ import annotations

import dataclasses
from typing import Final

import pytest

from tether.slotted import Slotted, replaced


class Point(Slotted):
    __slots__ = ("x", "y")  # the declared order below is the one that counts
    x: Final[int]
    y: Final[int]

    def __init__(self, x: int, y: int = 0) -> None:
        self.x = x
        self.y = y


class Labelled(Point):
    __slots__ = ("label",)
    label: Final[str]

    def __init__(self, x: int, y: int, label: str) -> None:
        super().__init__(x, y)
        self.label = label


class Other(Slotted):
    __slots__ = ("x", "y")
    x: Final[int]
    y: Final[int]

    def __init__(self, x: int, y: int) -> None:
        self.x = x
        self.y = y


def test_records_compare_and_hash_by_their_fields_within_one_class() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != Other(1, 2)  # the same fields in another class: not equal
    assert Point(1, 2) != (1, 2)
    assert Labelled(1, 2, "a") != Point(1, 2)
    assert {Point(1, 2), Point(1, 2), Labelled(1, 2, "a")} == {Point(1, 2), Labelled(1, 2, "a")}


def test_a_record_shows_its_fields_in_declared_order_bases_first() -> None:
    assert repr(Point(1)) == "Point(x=1, y=0)"
    assert repr(Labelled(1, 2, "a")) == "Labelled(x=1, y=2, label='a')"


def test_a_record_has_no_dict() -> None:
    point = Point(1, 2)
    assert not hasattr(point, "__dict__")


@dataclasses.dataclass(frozen=True)
class _AsDataclass:
    x: int
    y: int
    label: str


def test_replaced_copies_a_record_with_changes_as_dataclasses_replace_does() -> None:
    point = Labelled(1, 2, "a")
    moved = replaced(point, y=5)
    assert moved == Labelled(1, 5, "a")
    assert type(moved) is Labelled
    assert point == Labelled(1, 2, "a")  # the original is left as it was
    assert replaced(point) == point
    assert replaced(point) is not point
    as_dataclass = dataclasses.replace(_AsDataclass(1, 2, "a"), y=5)
    assert (moved.x, moved.y, moved.label) == (as_dataclass.x, as_dataclass.y, as_dataclass.label)


def test_replaced_refuses_a_name_that_is_not_a_field_as_dataclasses_replace_does() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'") as ours:
        replaced(Point(1), z=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        dataclasses.replace(_AsDataclass(1, 2, "a"), z=3)  # pyright: ignore[reportCallIssue]
    assert str(ours.value).startswith("Point.__init__()")
