"""Plain records (`Slotted`): equal, hashed and shown by their fields, as dataclasses were."""

from __future__ import annotations

from typing import Final

from tether.slotted import Slotted


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
