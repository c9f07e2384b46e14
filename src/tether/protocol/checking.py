"""Records validated by pydantic, imported only when data from outside must be checked.

`record_schema` describes a `Record` class to pydantic: a typed dict of its fields (from the
class's annotations, required where its `__init__` gives no default, unknown keys refused for
a `_closed` class) whose result builds the record; an instance of the class is taken as it is.
`tagged_schema` makes `Annotated[A | B, Tagged("kind")]` a discriminated union, each member
chosen by the default of its tag field.
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast, get_args, get_type_hints

from pydantic import ConfigDict, GetCoreSchemaHandler, TypeAdapter
from pydantic_core import core_schema

from tether.protocol.record import Record, defaults
from tether.slotted import slot_fields


@cache
def adapter(cls: type[Record]) -> TypeAdapter[Any]:
    """The validator of `cls`, built on first use."""
    return TypeAdapter(cls, config=ConfigDict(title=cls.__name__))


def record_schema(cls: type[Record], handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    hints = get_type_hints(cls, include_extras=True)
    given = defaults(cls)
    fields = {
        name: core_schema.typed_dict_field(
            handler.generate_schema(hints[name]), required=name not in given
        )
        for name in slot_fields(cls)
    }
    checked = core_schema.typed_dict_schema(
        fields, cls_name=cls.__name__, extra_behavior="forbid" if cls._closed else "ignore"
    )

    def build(data: dict[str, Any]) -> Record:
        return cls(**data)

    made = core_schema.no_info_after_validator_function(build, checked)
    if cls._prepared.__func__ is not Record._prepared.__func__:  # pyright: ignore[reportFunctionMemberAccess]
        made = core_schema.no_info_before_validator_function(cls._prepared, made)

    def taken(value: Any, check: core_schema.ValidatorFunctionWrapHandler) -> Any:
        return value if isinstance(value, cls) else check(value)

    return core_schema.no_info_wrap_validator_function(taken, made)


def tagged_schema(source: Any, field: str, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
    choices: dict[str, core_schema.CoreSchema] = {}
    for member in get_args(source):
        choices[defaults(member)[field]] = handler.generate_schema(member)
    return core_schema.tagged_union_schema(choices, discriminator=field)


def constrained(schema: core_schema.CoreSchema, key: str, value: object) -> core_schema.CoreSchema:
    """`schema` with the constraint `key` (`le`, `min_length`) set to `value`."""
    changed: dict[str, Any] = dict(schema)
    changed[key] = value
    return cast(core_schema.CoreSchema, changed)
