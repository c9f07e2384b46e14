"""`Slotted`: equality, hashing and a repr for a plain class from the fields its `__slots__`
name, for the records made on the way to the first request.

A dataclass costs each start-up the methods it generates: Python 3.11 compiles `__init__`,
`__repr__` and `__eq__` from source for each class (and `__hash__`, `__setattr__` and
`__delattr__` when frozen), some 1.9 M instructions a class, 3.5 M frozen, against 0.1 M for a
class with `__slots__` and its own `__init__`. A class that subclasses `Slotted` writes its
`__init__` and declares its fields `Final` where they must not change (pyright then refuses to
reassign them, as it refuses a frozen dataclass's); the rest comes from here, worked out from
the fields when first asked, not when the class is made. Fields compare, hash and show in the
order the class declares them (a base's first), as a dataclass's do; an instance equals only
an instance of its very class. `replaced` copies one with changes, as `dataclasses.replace`
does, for a class whose `__init__` takes every field under its own name.
"""

from __future__ import annotations

from typing import Any, TypeVar

_FIELDS: dict[type, tuple[str, ...]] = {}


def slot_fields(cls: type) -> tuple[str, ...]:
    """The fields `__slots__` name on `cls` and its bases, the bases' first, each class's in
    the order its annotations declare them."""
    found = _FIELDS.get(cls)
    if found is None:
        found = tuple(
            name
            for klass in reversed(cls.__mro__)
            for name in vars(klass).get("__annotations__", {})
            if name in vars(klass).get("__slots__", ())
        )
        _FIELDS[cls] = found
    return found


_S = TypeVar("_S", bound="Slotted")


class Slotted:
    """A base for plain records: `__eq__`, `__hash__` and `__repr__` from `__slots__`."""

    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in slot_fields(type(self)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Slotted) or type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in slot_fields(type(self)))
        return f"{type(self).__name__}({shown})"


def replaced(record: _S, /, **changes: Any) -> _S:
    """A copy of `record` with `changes`, as `dataclasses.replace` makes one of a dataclass:
    its class called with every field by name, the changed ones given. A name that is not a
    field is refused the same way (TypeError), before anything is made. For the records whose
    `__init__` takes every field under its own name, as a dataclass's does."""
    fields = slot_fields(type(record))
    unknown = sorted(changes.keys() - set(fields))
    if unknown:
        raise TypeError(
            f"{type(record).__name__}.__init__() got an unexpected keyword argument {unknown[0]!r}"
        )
    values = {name: getattr(record, name) for name in fields}
    values.update(changes)
    return type(record)(**values)
