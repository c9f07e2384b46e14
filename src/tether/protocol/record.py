"""`Record`: the base of the protocol's value classes (messages, blocks, events, ops).

The protocol's classes are made and used on the way to every model request, and pydantic
costs a start-up some 450 M instructions to import and another 190 M to make these classes
and build their validators: over a third of `tether -p hi`'s count. A `Record` is a `Slotted`
class with its own `__init__` (nothing is validated when tether builds one: its callers are
typed) and the part of pydantic's model API the code uses: `model_copy(update=...)`,
`model_dump` (`mode`, `exclude`, `exclude_none`), `model_dump_json`, and `model_validate` /
`model_validate_json` for data from outside (a session file, a client's message). Validation
is pydantic's, imported only then: `__get_pydantic_core_schema__` describes a record to it
from the class's annotations and `__init__` defaults (`tether.protocol.checking`), so a record
also validates inside a pydantic model or a `TypeAdapter`.

A class sets `_closed = True` to refuse unknown keys (pydantic's `extra="forbid"`), and may
override `_prepared` (data before validation) and `model_dump`. `Tagged("kind")` in a union's
`Annotated` makes it a discriminated union; `AtMost(n)` and `NON_EMPTY` are its constraints.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from tether.slotted import Slotted, slot_fields

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler

DumpMode = Literal["python", "json"]


class Record(Slotted):
    """A protocol value: fields from `__slots__`, pydantic's model API without pydantic."""

    __slots__ = ()
    _closed: ClassVar[bool] = False

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> Self:
        """A copy with the fields in `update` replaced (not validated, as pydantic's)."""
        copy = object.__new__(type(self))
        for name in slot_fields(type(self)):
            object.__setattr__(copy, name, getattr(self, name))
        for name, value in (update or {}).items():
            if name not in slot_fields(type(self)):
                raise AttributeError(f"{type(self).__name__} has no field {name!r}")
            object.__setattr__(copy, name, value)
        return copy

    def model_dump(
        self,
        *,
        mode: DumpMode = "python",
        exclude: Collection[str] | None = None,
        exclude_none: bool = False,
    ) -> dict[str, Any]:
        """The fields as plain data, records within as dicts; `mode="json"`: tuples as lists."""
        data: dict[str, Any] = {}
        for name in slot_fields(type(self)):
            if exclude is not None and name in exclude:
                continue
            value = getattr(self, name)
            if value is None and exclude_none:
                continue
            data[name] = dumped(value, mode, exclude_none)
        return data

    def model_dump_json(
        self, *, exclude: Collection[str] | None = None, exclude_none: bool = False
    ) -> str:
        """`model_dump(mode="json")` as compact JSON text, as pydantic writes it."""
        data = self.model_dump(mode="json", exclude=exclude, exclude_none=exclude_none)
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def model_validate(cls, data: object) -> Self:
        """A record from plain data, checked (pydantic's `ValidationError` when it is bad)."""
        from tether.protocol.checking import adapter

        return adapter(cls).validate_python(data)

    @classmethod
    def model_validate_json(cls, data: str | bytes) -> Self:
        """A record from JSON text, checked as `model_validate` checks."""
        from tether.protocol.checking import adapter

        return adapter(cls).validate_json(data)

    @classmethod
    def _prepared(cls, data: Any) -> Any:
        """The data to validate, from what was given (the class's own shapes)."""
        return data

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from tether.protocol.checking import record_schema

        return record_schema(cls, handler)


def field_default(cls: type[Record], name: str) -> Any:
    """The default the keyword-only field `name` of `cls` takes (a tag field's value)."""
    return defaults(cls)[name]


def defaults(cls: type[Record]) -> dict[str, Any]:
    """The fields of `cls` that have defaults, with them (its `__init__`'s keyword-only ones)."""
    return cls.__init__.__kwdefaults__ or {}


def dumped(value: Any, mode: DumpMode, exclude_none: bool) -> Any:
    """`value` as `model_dump` gives a field: records as dicts, containers walked."""
    if isinstance(value, Record):
        return value.model_dump(mode=mode, exclude_none=exclude_none)
    if isinstance(value, tuple | list):
        items = [dumped(item, mode, exclude_none) for item in value]  # pyright: ignore[reportUnknownVariableType]
        return items if mode == "json" or isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: dumped(v, mode, exclude_none) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    return value


class Tagged(Slotted):
    """In `Annotated[A | B, Tagged("kind")]`: the union is told apart by the field `kind`."""

    __slots__ = ("field",)
    field: str

    def __init__(self, field: str) -> None:
        self.field = field

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from tether.protocol.checking import tagged_schema

        return tagged_schema(source, self.field, handler)


class AtMost(Slotted):
    """In `Annotated[int, AtMost(n)]`: at most `n`."""

    __slots__ = ("limit",)
    limit: int

    def __init__(self, limit: int) -> None:
        self.limit = limit

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from tether.protocol.checking import constrained

        return constrained(handler(source), "le", self.limit)


class _NonEmpty(Slotted):
    """In `Annotated[str, NON_EMPTY]`: at least one character."""

    __slots__ = ()

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        from tether.protocol.checking import constrained

        return constrained(handler(source), "min_length", 1)


NON_EMPTY = _NonEmpty()
